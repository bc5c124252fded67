// docs/contract.md §4 (http handlers), against real containers: an http post hook with a transform
// header whose secret never reaches the sandbox, and http pre hooks that decide like command hooks.
// The test servers and the controller: network-helpers.ts.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeSources } from '../../src/config/sources.js';
import type { Environment } from '../../src/controller/environment.js';
import { hooksJson } from './helpers.js';
import {
  bash,
  closedPort,
  controller,
  dockerJson,
  httpsPort,
  labelled,
  received,
  SECRET,
  startNetwork,
  stopNetwork,
  withNetworkedEnvironment,
} from './network-helpers.js';
import { MEMORY_SEARCH, ROOT_SEARCH } from './secret-hunt.js';
import { execResultOf } from '../../src/tools/results.js';

beforeAll(startNetwork);
afterAll(stopNetwork);

describe('the audit-logging example of the Gemini hooks page (post hook → http, transform header)', () => {
  it('sends each event with the injected header; the secret is nowhere in the sandbox', async () => {
    received.length = 0;
    const url = `https://telemetry.hookbox.test:${httpsPort}/api/v1/agent-events`;
    const hooks = hooksJson({
      'audit-logging': {
        post_tool_execution: [
          { matcher: 'read_file|write_file', hooks: [{ type: 'http', url, timeout: 10 }] },
        ],
      },
    });
    await withNetworkedEnvironment(
      [
        { domain: 'telemetry.hookbox.test', transform: { Authorization: `Bearer ${SECRET}` } },
        { domain: '*' },
      ],
      [hooks],
      async (environment) => {
        const write = await environment.call({
          name: 'write_file',
          args: { path: 'audit.log', content: 'event 1' },
        });
        const read = await environment.call({ name: 'read_file', args: { path: 'audit.log' } });
        const list = await environment.call({ name: 'list_files', args: { path: '.' } });
        expect(read.result).toEqual({ content: 'event 1' });
        for (const outcome of [write, read])
          expect(outcome.hooks).toMatchObject([
            { type: 'http', event: 'post_tool_execution', outcome: 'ok', handler: url },
          ]);
        expect(list.hooks).toEqual([]);

        // The telemetry server got each event, with the header only the proxy knows.
        expect(received.map((event) => event.path)).toEqual([
          '/api/v1/agent-events',
          '/api/v1/agent-events',
        ]);
        for (const event of received) {
          expect(event.headers.authorization).toBe(`Bearer ${SECRET}`);
          expect(event.headers['content-type']).toBe('application/json');
          expect(event.headers['x-hookbox-hook-token']).toBeUndefined();
        }
        expect(received[0]!.body).toMatchObject({
          tool_call: { name: 'write_file', args: { path: 'audit.log', content: 'event 1' } },
          environment_id: environment.id,
        });
        expect(received[1]!.body).toMatchObject({
          tool_call: { name: 'read_file', args: { path: 'audit.log' } },
          environment_id: environment.id,
          result: { content: 'event 1' },
        });

        // The records: every connection, header names but never values.
        const egress = environment.records().filter((entry) => entry.kind === 'egress');
        expect(egress).toHaveLength(2);
        expect(egress[0]).toMatchObject({
          form: 'hook',
          decision: 'allowed',
          rule: 'telemetry.hookbox.test',
          injected_headers: ['Authorization'],
          status: 200,
        });
        expect(JSON.stringify(environment.records())).not.toContain(SECRET);

        // Tool code looks for the secret everywhere it can: environment, files, /proc.
        const search = await environment.call(
          bash(
            // A pattern that matches the secret without being it (else grep finds its own argv).
            `P='${SECRET.slice(0, -1)}[${SECRET.at(-1)}]'; env | grep -c "$P"; ` +
              `grep -rls -D skip "$P" / --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev 2>/dev/null; ` +
              `for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do grep -ls "$P" "$f" 2>/dev/null; done; ` +
              `echo searched`,
          ),
        );
        expect(execResultOf(search).stdout).toBe('0\nsearched\n');

        // So does root through docker exec, as every user, including every process's memory.
        const half = SECRET.length >> 1;
        const rootSearch = JSON.parse(
          execFileSync('docker', [
            'exec',
            '-u',
            '0',
            environment.sandbox.containerId,
            'python3',
            '-c',
            ROOT_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
          ]).toString(),
        ) as string[];
        expect(rootSearch).toEqual([]);
        // (The search does find what is there: the tool's file, as the tool user.)
        const control = execFileSync('docker', [
          'exec',
          '-u',
          '0',
          environment.sandbox.containerId,
          'python3',
          '-c',
          ROOT_SEARCH,
          'event',
          ' 1',
        ]).toString();
        expect(JSON.parse(control)).toContain('/workspace/audit.log');
        // And the memory of every process of the sandbox, read from the host.
        const pids = execFileSync('docker', ['top', environment.sandbox.containerId, '-eo', 'pid'])
          .toString()
          .split('\n')
          .slice(1)
          .map((line) => line.trim())
          .filter(Boolean);
        const memory = JSON.parse(
          execFileSync('python3', [
            '-c',
            MEMORY_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
            ...pids,
          ]).toString(),
        ) as { found: string[]; scanned: number };
        expect(memory.found).toEqual([]);
        // tini and the sandbox agent at least (the test runs as root on the host, as the suite does).
        expect(memory.scanned).toBeGreaterThanOrEqual(2);
        // (The scan does find a secret where there is one: in the controller, this process.)
        const own = JSON.parse(
          execFileSync('python3', [
            '-c',
            MEMORY_SEARCH,
            SECRET.slice(0, half),
            SECRET.slice(half),
            String(process.pid),
          ]).toString(),
        ) as { found: string[] };
        expect(own.found).toContain(String(process.pid));

        // Nor is it in the containers' configuration (environment, command line).
        const relay = labelled('ps', environment.id).split('\n');
        expect(relay).toHaveLength(2);
        for (const id of relay)
          expect(JSON.stringify(dockerJson('inspect', id))).not.toContain(SECRET);
      },
    );
  });
});

describe('http pre hooks decide like command hooks', () => {
  let environment: Environment;
  const gate = (path: string, extra: Record<string, unknown> = {}) =>
    hooksJson({
      'remote-gate': {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [
              {
                type: 'http',
                url: `https://telemetry.hookbox.test:${httpsPort}${path}`,
                headers: { 'X-Event-Source': 'agent-sandbox' },
                timeout: 10,
                ...extra,
              },
            ],
          },
        ],
      },
    });
  const downGate = (extra: Record<string, unknown> = {}) =>
    hooksJson({
      'remote-gate': {
        pre_tool_execution: [
          {
            matcher: 'code_execution',
            hooks: [{ type: 'http', url: `https://down.hookbox.test:${closedPort}/`, ...extra }],
          },
        ],
      },
    });

  beforeAll(async () => {
    environment = await controller.createEnvironment({
      vocabulary: '2026-05',
      network: {
        allowlist: [
          { domain: 'telemetry.hookbox.test', transform: { Authorization: `Bearer ${SECRET}` } },
          { domain: 'down.hookbox.test' },
        ],
      },
    });
  });
  afterAll(async () => {
    await environment?.delete();
  });

  const touch = bash('touch ran && echo ran');

  it('an answer of deny blocks the call, with its reason; the server got the event', async () => {
    received.length = 0;
    await environment.addSources(placeSources([gate('/deny')]));
    const outcome = await environment.call(touch);
    expect(outcome).toMatchObject({
      blocked: true,
      reason: 'blocked by the remote gate',
      result: null,
    });
    expect(outcome.hooks).toMatchObject([
      { type: 'http', outcome: 'deny', reason: 'blocked by the remote gate', exit_code: null },
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toEqual({
      tool_call: {
        name: 'code_execution',
        args: { code: 'touch ran && echo ran', language: 'bash' },
      },
      environment_id: environment.id,
    });
    expect(received[0]!.headers).toMatchObject({
      authorization: `Bearer ${SECRET}`,
      'x-event-source': 'agent-sandbox',
    });
  });

  it('an answer of allow lets it through', async () => {
    await environment.addSources(placeSources([gate('/allow')]));
    const outcome = await environment.call(touch);
    expect(outcome.blocked).toBe(false);
    expect(execResultOf(outcome).stdout).toBe('ran\n');
    expect(outcome.hooks).toMatchObject([{ outcome: 'allow' }]);
  });

  const failures: [
    string,
    () => ReturnType<typeof gate>,
    () => ReturnType<typeof gate>,
    string,
    RegExp,
  ][] = [
    [
      'a 500 answer',
      () => gate('/500'),
      () => gate('/500', { on_error: 'deny' }),
      'error',
      /HTTP status 500/,
    ],
    [
      'a garbage answer',
      () => gate('/garbage'),
      () => gate('/garbage', { on_error: 'deny' }),
      'unrecognized',
      /not a decision/,
    ],
    [
      'a hang past the timeout',
      () => gate('/hang', { timeout: 2 }),
      () => gate('/hang', { timeout: 2, on_error: 'deny' }),
      'timeout',
      /timed out after 2 s/,
    ],
    [
      'a refused connection',
      () => downGate(),
      () => downGate({ on_error: 'deny' }),
      'error',
      /could not reach down\.hookbox\.test.*upstream-unreachable.*ECONNREFUSED/,
    ],
  ];

  it.each(failures)('%s allows', async (_what, allowGate, _denyGate, outcome, reason) => {
    await environment.addSources(placeSources([allowGate()]));
    const started = performance.now();
    const result = await environment.call(touch);
    expect(result.blocked).toBe(false);
    expect(execResultOf(result).stdout).toBe('ran\n');
    expect(result.hooks).toMatchObject([{ type: 'http', outcome }]);
    expect(result.hooks[0]!.reason).toMatch(reason);
    if (outcome === 'timeout') {
      expect(result.hooks[0]!.duration_ms).toBeGreaterThanOrEqual(2000);
      expect(performance.now() - started).toBeLessThan(6000);
    }
  });

  it.each(failures)(
    '%s blocks with on_error: "deny"',
    async (_what, _allowGate, denyGate, outcome, reason) => {
      await environment.addSources(placeSources([denyGate()]));
      const result = await environment.call(touch);
      expect(result.blocked).toBe(true);
      expect(result.reason).toMatch(/on_error is "deny"/);
      expect(result.hooks).toMatchObject([{ type: 'http', outcome }]);
      expect(result.hooks[0]!.reason).toMatch(reason);
    },
  );

  it('gates naming a domain the allowlist lacks are refused, the old gates stay', async () => {
    await environment.addSources(placeSources([gate('/deny')]));
    const other = hooksJson({
      g: {
        post_tool_execution: [
          { hooks: [{ type: 'http', url: 'https://elsewhere.hookbox.test/ev' }] },
        ],
      },
    });
    await expect(environment.addSources(placeSources([other]))).rejects.toThrow(
      /needs? a network\.allowlist that names elsewhere\.hookbox\.test/,
    );
    expect((await environment.call(touch)).blocked).toBe(true);
  });
});
