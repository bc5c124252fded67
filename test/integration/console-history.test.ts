// The console's history survives a restart (docs/console.md, "What it remembers"), in a real
// headless Chromium against `hookbox serve --state-file`: three tenants' interactions (a denied
// call, a plain one, one waiting for approval), the server stopped and started again on the same
// state file, then the Interactions list still shows them, searched and filtered by status, call
// outcome, gate, tool and tenant; an environment's calls are still there, it is `reattached` with
// its original age; a container killed from outside shows its lost_reason. Screenshots go to
// docs/images/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction } from '../../src/interactions/schema.js';

const CHROMIUM = process.env.HOOKBOX_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(process.cwd(), 'docs', 'images');
const ADMIN = 'history-ops-key-0123';
const KEYS = { alice: 'history-alice-key-0123', bob: 'history-bob-key-0123' };
const GATE = `import json, sys
code = str(json.load(sys.stdin)["tool_call"]["args"])
if "rm -rf" in code:
    print(json.dumps({"decision": "deny", "reason": "no deleting, said the gate"}))
elif "deploy" in code:
    print(json.dumps({"decision": "ask", "reason": "deploys need a human"}))
else:
    print(json.dumps({"decision": "allow"}))
`;
const ENVIRONMENT = {
  type: 'remote',
  sources: [
    {
      type: 'inline',
      target: '.agents/hooks.json',
      content: JSON.stringify({
        'security-gate': {
          pre_tool_execution: [
            {
              matcher: 'code_execution',
              hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/gate.py' }],
            },
          ],
        },
      }),
    },
    { type: 'inline', target: '.agents/hooks-scripts/gate.py', content: GATE },
  ],
};

const dir = mkdtempSync(join(tmpdir(), 'hookbox-console-history-'));
const stateFile = join(dir, 'state.sqlite');
const keysFile = join(dir, 'keys.yaml');
const children: ChildProcess[] = [];
let url: string;
let browser: Browser;
let page: Page;
let profile: string;
const pageErrors: string[] = [];
const made: Record<'denied' | 'plain' | 'waiting', Interaction> = {} as never;
let firstCreated: string;
let restartedAt: number;

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function serve(port: number): Promise<ChildProcess> {
  const child = spawn(
    'node',
    [
      resolve('bin/hookbox.js'),
      'serve',
      '--port',
      String(port),
      '--state-file',
      stateFile,
      '--api-keys-file',
      keysFile,
    ],
    {
      env: { ...process.env, HOOKBOX_HOME: dir, HOOKBOX_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  children.push(child);
  await new Promise<void>((done, fail) => {
    createInterface({ input: child.stderr }).on(
      'line',
      (line) => line.includes('listening on') && done(),
    );
    child.once('exit', (code) => fail(new Error(`hookbox serve exited ${code}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

const api = async (path: string, key: string, init: { method?: string; body?: unknown } = {}) => {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return (await response.json().catch(() => ({}))) as Record<string, unknown>;
};

const rows = () =>
  page.$$eval('tr[data-interaction]', (found) =>
    found.map((row) => row.getAttribute('data-interaction')),
  );

/** Sets one filter (the others back to any) and waits for the rows to be `expected`. */
async function filterTo(id: string, value: string, expected: string[]): Promise<void> {
  for (const other of ['status', 'outcome', 'gate', 'tool', 'tenant'])
    await page.select(`#interaction-${other}`, '');
  await page.select(id, value);
  await page.waitForFunction(
    (want: string[]) => {
      const shown = [...document.querySelectorAll('tr[data-interaction]')].map((row) =>
        row.getAttribute('data-interaction'),
      );
      return shown.length === want.length && want.every((id) => shown.includes(id));
    },
    { timeout: 10_000 },
    expected,
  );
  expect((await rows()).sort()).toEqual([...expected].sort());
}

beforeAll(async () => {
  writeFileSync(
    keysFile,
    [
      'keys:',
      `  - { name: ops, key: ${ADMIN}, role: admin }`,
      `  - { name: alice, key: ${KEYS.alice} }`,
      `  - { name: bob, key: ${KEYS.bob} }`,
    ].join('\n'),
  );
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const first = await serve(port);
  made.denied = (await api('/v1beta/interactions', KEYS.alice, {
    body: {
      agent: 'scripted',
      input: [
        { type: 'code_execution_call', arguments: { code: 'rm -rf /workspace/app' } },
        { type: 'tool_call', name: 'write_file', arguments: { path: 'a.txt', content: 'kept' } },
      ],
      environment: ENVIRONMENT,
    },
  })) as unknown as Interaction;
  made.plain = (await api('/v1beta/interactions', KEYS.bob, {
    body: {
      agent: 'scripted',
      input: [
        { type: 'tool_call', name: 'write_file', arguments: { path: 'b.txt', content: 'b' } },
      ],
      environment: 'remote',
    },
  })) as unknown as Interaction;
  made.waiting = (await api('/v1beta/interactions', KEYS.alice, {
    body: {
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: 'echo deploy' } }],
      environment: ENVIRONMENT,
    },
  })) as unknown as Interaction;
  expect([made.denied.status, made.plain.status, made.waiting.status]).toEqual([
    'completed',
    'completed',
    'requires_action',
  ]);
  const before = await api(`/console/api/environments/${made.denied.environment_id}`, ADMIN);
  firstCreated = (before.environment as { created: string }).created;
  // A restart a measurable time later, so the original age and the restart's differ.
  await new Promise((done) => setTimeout(done, 1500));
  await stop(first);
  restartedAt = Date.now();
  await serve(port);

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
  await page.goto(`${url}/console`, { waitUntil: 'domcontentloaded' });
  await page.locator('#api-key').fill(ADMIN);
  await page.locator('button[type=submit]').click();
  await page.waitForSelector('nav[aria-label=Console]');
}, 240_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  // A durable server leaves its environments for the next one: these are removed here.
  if (url)
    for (const { environment_id } of Object.values(made))
      if (environment_id)
        await api(`/v1beta/environments/${environment_id}`, ADMIN, { method: 'DELETE' });
  for (const child of children) if (child.exitCode === null) await stop(child);
});

describe('the console after hookbox serve restarts on the same state file', () => {
  it('lists the interactions from before the restart, searched and filtered', async () => {
    await page.evaluate(() => (location.hash = '#/interactions'));
    await page.waitForSelector('tr[data-interaction]');
    const ids = Object.values(made).map((i) => i.id);
    expect((await rows()).sort()).toEqual([...ids].sort());
    const table = await page.$eval('#interactions', (e) => (e as HTMLElement).innerText);
    expect(table).toContain('alice');
    expect(table).toContain('bob');

    await filterTo('#interaction-tenant', 'bob', [made.plain.id]);
    await filterTo('#interaction-outcome', 'blocked', [made.denied.id]);
    await filterTo('#interaction-outcome', 'waiting', [made.waiting.id]);
    await filterTo('#interaction-gate', 'security-gate', [made.denied.id, made.waiting.id]);
    await filterTo('#interaction-tool', 'write_file', [made.denied.id, made.plain.id]);
    await filterTo('#interaction-status', 'requires_action', [made.waiting.id]);
    await filterTo('#interaction-tenant', 'alice', [made.denied.id, made.waiting.id]);
    await page.type('#interaction-search', made.waiting.environment_id);
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-interaction]').length === 1,
    );
    expect(await rows()).toEqual([made.waiting.id]);
    // fill: cleared and typed with input events, so a re-render cannot put the old text back.
    await page.locator('#interaction-search').fill('no-such-thing');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-interaction]').length === 0,
    );
    // fill: cleared and typed with input events, so a re-render cannot put the old text back.
    await page.locator('#interaction-search').fill('security');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-interaction]').length === 2,
    );
    await page.screenshot({ path: join(IMAGES, 'console-interactions-filtered.png') });

    // An interaction's steps are read from the state file.
    await page.evaluate((id) => (location.hash = `#/interactions/${id}`), made.denied.id);
    await page.waitForSelector('.step.denied');
    expect(await page.$eval('.timeline', (e) => (e as HTMLElement).innerText)).toContain(
      'no deleting, said the gate',
    );
    expect(pageErrors).toEqual([]);
  });

  it("keeps an environment's calls; it is reattached with its original age", async () => {
    const id = made.denied.environment_id;
    await page.evaluate((env) => (location.hash = `#/environments/${env}`), id);
    await page.waitForSelector('.step.denied');
    const timeline = await page.$$eval('.timeline [data-call]', (found) =>
      found.map((call) => (call as HTMLElement).innerText),
    );
    expect(timeline).toHaveLength(2);
    expect(timeline.join('\n')).toContain('Denied: no deleting, said the gate');
    expect(timeline.join('\n')).toContain('write_file');
    const facts = await page.$eval('.facts', (e) => (e as HTMLElement).innerText);
    expect(facts).toMatch(/Made\s+reattached/);
    const row = await api(`/console/api/environments/${id}`, ADMIN);
    const environment = row.environment as { created: string; source: string };
    expect(environment).toMatchObject({ source: 'reattached', created: firstCreated });
    expect(Date.parse(environment.created)).toBeLessThan(restartedAt - 1000);
    await page.screenshot({ path: join(IMAGES, 'console-after-restart.png'), fullPage: true });

    // The call held for an approver is still waiting, not blocked.
    await page.evaluate(
      (env) => (location.hash = `#/environments/${env}`),
      made.waiting.environment_id,
    );
    await page.waitForSelector('.step.waiting');
    expect(await page.$eval('.step.waiting', (e) => (e as HTMLElement).innerText)).toContain(
      'Held: deploys need a human',
    );
    expect(await page.$$('.step.denied')).toHaveLength(0);
    await page.select('#call-outcome', 'blocked');
    await page.waitForFunction(() => document.querySelectorAll('.step.waiting').length === 0);
    await page.select('#call-outcome', 'waiting');
    await page.waitForSelector('.step.waiting');
    expect(pageErrors).toEqual([]);
  });

  it('shows why an environment was lost when its container is killed from outside', async () => {
    const id = made.plain.environment_id;
    const container = execFileSync('docker', [
      'ps',
      '-q',
      '--filter',
      `label=dev.hookbox.environment=${id}`,
    ])
      .toString()
      .trim();
    expect(container).not.toBe('');
    execFileSync('docker', ['kill', container]);
    await page.evaluate((env) => (location.hash = `#/environments/${env}`), id);
    await page.waitForFunction(
      () => document.querySelector('.facts')?.textContent?.includes('Lost'),
      { timeout: 30_000 },
    );
    const reason = await page.$eval('.facts dd.error', (e) => e.innerText);
    const answer = await api(`/v1beta/environments/${id}`, KEYS.bob);
    expect(answer.status).toBe('lost');
    expect(reason).toBe(answer.lost_reason);
    expect(reason.length).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  });
});
