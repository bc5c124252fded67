// GET /metrics (Prometheus text, prom-client) of `hookbox serve` against real containers: the
// counters a scripted interaction causes, the keys (on the main port) and the keyless loopback
// --metrics-port; and the console's API behind the same keys.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from '../unit/interactions/gemini-requests.js';
import { apiErrorOf } from './api-error.js';

const KEY = 'metrics-test-key-0123';
const TENANT_KEY = 'tenant-key-not-an-admin';
let server: RunningServer;

beforeAll(async () => {
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-metrics-')),
    logger,
    startEngine: false,
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    // The operator's key: /metrics and the console need an admin (docs/console.md); TENANT_KEY is a tenant's.
    apiKeys: [TENANT_KEY],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(KEY), quotas: DEFAULT_TENANT_QUOTAS },
    ],
    logger,
    controller,
    metricsPort: 0,
  });
});
afterAll(async () => {
  await server?.close();
});

async function scrape(url = `${server.url}/metrics`, key: string | null = KEY) {
  const response = await fetch(url, { headers: key ? { 'x-goog-api-key': key } : {} });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The value of one series (`name{labels}`, labels in prom-client's order), or undefined. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((row) => row.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function post(body: unknown): Promise<Interaction> {
  const response = await fetch(`${server.url}/v1beta/interactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Interaction;
}

describe('GET /metrics', () => {
  it('is refused without a key and with a wrong one, on /metrics and on the console API', async () => {
    for (const path of ['/metrics', '/console/api/overview', '/console/api/events']) {
      const missing = await scrape(`${server.url}${path}`, null);
      expect(missing.status, path).toBe(401);
      expect(apiErrorOf(JSON.parse(missing.text)).code).toBe('unauthenticated');
      const wrong = await scrape(`${server.url}${path}`, 'not-the-right-key');
      expect(wrong.status, path).toBe(401);
      expect(wrong.text).not.toContain('hookbox_');
      // A tenant's key is a key, but not an operator's: the metrics show every tenant's activity.
      const tenant = await scrape(`${server.url}${path}`, TENANT_KEY);
      expect(tenant.status, path).toBe(403);
      expect(tenant.text).not.toContain('hookbox_');
      expect(apiErrorOf(JSON.parse(tenant.text)), path).toMatchObject({
        status: 'PERMISSION_DENIED',
        code: 'permission_denied',
        field: 'x-goog-api-key',
      });
    }
    // The page itself holds no data and needs no key.
    const page = await fetch(`${server.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-/);
  });

  it('counts what a scripted interaction did: calls, hook runs, durations, environments, HTTP', async () => {
    const before = (await scrape()).text;
    const interaction = await post(
      scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden'), codeCall('echo hello')),
    );
    expect(interaction.status).toBe('completed');

    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    const delta = (series: string) => (valueOf(text, series) ?? 0) - (valueOf(before, series) ?? 0);
    expect(delta('hookbox_tool_calls_total{tool="code_execution",outcome="blocked"}')).toBe(1);
    expect(delta('hookbox_tool_calls_total{tool="code_execution",outcome="ok"}')).toBe(1);
    const runs = (outcome: string) =>
      `hookbox_hook_runs_total{group="security-gate",event="pre_tool_execution",outcome="${outcome}",source="sandbox"}`;
    expect(delta(runs('deny'))).toBe(1);
    expect(delta(runs('allow'))).toBe(1);
    expect(
      delta(
        'hookbox_hook_duration_seconds_count{group="security-gate",event="pre_tool_execution"}',
      ),
    ).toBe(2);
    expect(
      valueOf(
        text,
        'hookbox_hook_duration_seconds_sum{group="security-gate",event="pre_tool_execution"}',
      ),
    ).toBeGreaterThan(0);
    expect(delta('hookbox_interactions_total{status="completed"}')).toBe(1);
    expect(delta('hookbox_environment_create_seconds_count{source="cold"}')).toBe(1);
    expect(valueOf(text, 'hookbox_environments_live')).toBe(1);
    expect(valueOf(text, 'hookbox_environments_pooled')).toBe(0);
    expect(valueOf(text, 'hookbox_interactions_in_flight')).toBe(0);
    expect(
      delta('hookbox_http_requests_total{method="POST",route="/v1beta/interactions",status="200"}'),
    ).toBe(1);
    // The refused scrapes of the test before, by route pattern.
    expect(
      valueOf(text, 'hookbox_http_requests_total{method="GET",route="/metrics",status="401"}'),
    ).toBe(2);
    expect(text).toContain('# TYPE hookbox_hook_duration_seconds histogram');
    expect(text).toContain('hookbox_process_resident_memory_bytes');

    // Deleting it: the gauge goes down, the counter up.
    const deleted = await fetch(`${server.url}/v1beta/environments/${interaction.environment_id}`, {
      method: 'DELETE',
      headers: { 'x-goog-api-key': KEY },
    });
    expect(deleted.status).toBe(200);
    const after = (await scrape()).text;
    expect(valueOf(after, 'hookbox_environments_live')).toBe(0);
    expect(
      (valueOf(after, 'hookbox_environments_deleted_total') ?? 0) -
        (valueOf(before, 'hookbox_environments_deleted_total') ?? 0),
    ).toBe(1);
    expect(
      valueOf(
        after,
        'hookbox_http_requests_total{method="DELETE",route="/v1beta/environments/:id",status="200"}',
      ),
    ).toBe(1);
  });

  it('counts egress decisions, and the console lists them', async () => {
    const interaction = await post({
      agent: 'scripted',
      input: [
        codeCall(
          [
            'import urllib.request, urllib.error',
            'try:',
            '    urllib.request.urlopen("http://elsewhere.hookbox.test/", timeout=10)',
            'except urllib.error.HTTPError as error:',
            '    print(error.code)',
          ].join('\n'),
          'python',
        ),
      ],
      environment: {
        type: 'remote',
        network: { allowlist: [{ domain: 'allowed.hookbox.test' }] },
      },
    });
    expect(interaction.status).toBe('completed');
    const result = interaction.steps.find((step) => step.type === 'code_execution_result');
    expect(JSON.stringify(result)).toContain('403');
    const { text } = await scrape();
    expect(
      valueOf(
        text,
        'hookbox_egress_decisions_total{decision="refused",rule="allowlist",form="http"}',
      ),
    ).toBe(1);
    const console = await fetch(`${server.url}/console/api/egress`, {
      headers: { 'x-goog-api-key': KEY },
    });
    const { egress } = (await console.json()) as { egress: { target: string; decision: string }[] };
    expect(egress[0]).toMatchObject({ decision: 'refused', target: 'elsewhere.hookbox.test:80/' });
  });

  it('is served with no key on the loopback --metrics-port, and nothing else is', async () => {
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const open = await scrape(`${server.metricsUrl}/metrics`, null);
    expect(open.status).toBe(200);
    expect(
      valueOf(open.text, 'hookbox_interactions_total{status="completed"}'),
    ).toBeGreaterThanOrEqual(2);
    const other = await scrape(`${server.metricsUrl}/v1beta/environments`, null);
    expect(other.status).toBe(404);
    expect(apiErrorOf(JSON.parse(other.text))).toMatchObject({
      httpStatus: 404,
      status: 'NOT_FOUND',
      code: 'not_found',
      field: 'path',
    });
  });
});
