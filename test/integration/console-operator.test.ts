// The console acting for an operator, in a real headless Chromium against a real server with keys
// (docs/console.md): a tenant's key is told it is not an admin key; an admin approves a tenant's
// waiting call from the console, and the API (with the tenant's key) and the audit log then show
// the approval, recorded as the admin. The screenshot goes to docs/images/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { auditLogPath, readAuditLog } from '../../src/record/audit-log.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';

const CHROMIUM = process.env.HOOKBOX_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(process.cwd(), 'docs', 'images');
const ADMIN_KEY = 'console-ops-key-0123';
const TENANT_KEY = 'console-alice-key-0123';
const ASK_GATE = `import json, sys
json.load(sys.stdin)
print(json.dumps({"decision": "ask", "reason": "deploys need a human"}))
`;

let server: RunningServer;
let browser: Browser;
let page: Page;
let profile: string;
let home: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  home = mkdtempSync(join(tmpdir(), 'hookbox-console-operator-'));
  const controller = await Controller.start({ home, logger, startEngine: false });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(ADMIN_KEY), quotas: DEFAULT_TENANT_QUOTAS },
      {
        name: 'alice',
        role: 'tenant',
        digest: keyDigest(TENANT_KEY),
        quotas: DEFAULT_TENANT_QUOTAS,
      },
    ],
    logger,
    controller,
  });
  profile = mkdtempSync(join(tmpdir(), 'hookbox-chromium-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  await page.setViewport({ width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await server?.close();
});

const textOf = (selector: string) =>
  page.$eval(selector, (element) => (element as HTMLElement).innerText);

describe('the console acting for an operator', () => {
  it("tells a tenant's key that it is not an admin key (not that the server is unreachable)", async () => {
    await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#api-key');
    await page.type('#api-key', TENANT_KEY);
    await page.locator('button[type=submit]').click();
    await page.waitForSelector('[role=alert]');
    const said = await textOf('[role=alert]');
    expect(said).toContain('This key is not an admin key');
    expect(said).toContain('HOOKBOX_ADMIN_KEYS');
    expect(said).not.toContain('could not be reached');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("approves a tenant's waiting call; the API and the audit log show it, recorded as the admin", async () => {
    const response = await fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TENANT_KEY },
      body: JSON.stringify({
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: { code: 'echo deployed-42' } }],
        environment: {
          type: 'remote',
          sources: [
            {
              type: 'inline',
              target: '.agents/hooks.json',
              content: JSON.stringify({
                gate: {
                  pre_tool_execution: [
                    {
                      matcher: 'code_execution',
                      hooks: [
                        { type: 'command', command: 'python3 /.agents/hooks-scripts/ask.py' },
                      ],
                    },
                  ],
                },
              }),
            },
            { type: 'inline', target: '.agents/hooks-scripts/ask.py', content: ASK_GATE },
          ],
        },
      }),
    });
    const paused = (await response.json()) as Interaction;
    expect(paused.status).toBe('requires_action');
    const callId = paused.pending_approvals![0]!.call_id;

    // fill: cleared and typed with input events, so a re-render cannot put the old text back.
    await page.locator('#api-key').fill(ADMIN_KEY);
    await page.locator('button[type=submit]').click();
    await page.waitForSelector('nav[aria-label=Console]');
    await page.evaluate((id) => (location.hash = `#/interactions/${id}`), paused.id);
    const approve = `button[aria-label="Approve ${callId}"]`;
    await page.waitForSelector(approve);
    await page.screenshot({ path: join(IMAGES, 'console-approval.png') });
    await page.locator(approve).click();
    await page.waitForFunction(
      () => document.querySelector('.approvals')?.textContent?.includes('Approved; continued in'),
      { timeout: 60_000 },
    );

    // The tenant, through the API, sees its call approved.
    const seen = (await (
      await fetch(`${server.url}/v1beta/interactions/${paused.id}`, {
        headers: { 'x-goog-api-key': TENANT_KEY },
      })
    ).json()) as Interaction;
    expect(seen.pending_approvals![0]).toMatchObject({ call_id: callId, status: 'approved' });
    // The audit log records the answer as the admin's, and the call ran.
    const records = readAuditLog(auditLogPath(home, paused.environment_id));
    expect(records).toContainEqual(
      expect.objectContaining({
        kind: 'approval',
        call_id: callId,
        status: 'approved',
        decided_by: 'ops',
      }),
    );
    const ran = records.filter(
      (entry) => entry.kind === 'tool_call' && entry.call_id === callId,
    ) as { blocked?: boolean }[];
    expect(ran.some((entry) => entry.blocked === false)).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('lists environments with their tenant, filtered by tenant and searched', async () => {
    await page.evaluate(() => (location.hash = '#/environments'));
    await page.waitForSelector('tr[data-environment]');
    expect(await textOf('#environments')).toContain('alice');
    await page.select('#environment-tenant', 'alice');
    expect(await page.$$eval('tr[data-environment]', (rows) => rows.length)).toBe(1);
    await page.type('#environment-search', 'no-such-thing');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-environment]').length === 0,
    );
    // fill: cleared and typed with input events, so a re-render cannot put the old text back.
    await page.locator('#environment-search').fill('gate');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-environment]').length === 1,
    );
    await page.screenshot({ path: join(IMAGES, 'console-environments-filtered.png') });
    expect(pageErrors).toEqual([]);
  });
});
