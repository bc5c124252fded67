// The web console in a real headless Chromium (Debian's `chromium`, driven by puppeteer-core)
// against `hookbox serve` and real containers: sign in (a wrong key refused), watch an environment
// appear while an interaction runs, open it, see the denied call with its reason (a reason holding
// <script> shows as text), check phone width, delete the environment. The list's and the denied
// call's screenshots go to docs/images/ (docs/console.md shows them), the others to
// test-results/console/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';

const KEY = 'console-test-key-0123';
const CHROMIUM = process.env.HOOKBOX_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-results', 'console');
const IMAGES = join(process.cwd(), 'docs', 'images');
/** A gate's reason that would run script if the console ever rendered hook output as HTML. */
const HOSTILE_REASON =
  'Blocked by the security gate: <script>window.__hookboxPwned = 1</script><img src=x onerror="window.__hookboxPwned = 2">';

const GATE = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
cmd = str(data.get("tool_call", {}).get("args", {}))
if "rm -rf" in cmd:
    print(json.dumps({"decision": "deny", "reason": ${JSON.stringify(HOSTILE_REASON)}}))
else:
    print(json.dumps({"decision": "allow"}))
`;

/** A scripted interaction: a denied call, then one that takes a few seconds (the environment is busy). */
const REQUEST = {
  agent: 'scripted',
  input: [
    { type: 'text', text: 'Clean up, then wait.' },
    { type: 'code_execution_call', arguments: { code: 'rm -rf /tmp/forbidden', language: 'bash' } },
    {
      type: 'code_execution_call',
      arguments: {
        // One egress refusal (a domain the allowlist lacks), then a few seconds of work.
        code: [
          "python3 - <<'PY'",
          'import urllib.request, urllib.error',
          'try:',
          '    urllib.request.urlopen("http://elsewhere.hookbox.test/", timeout=5)',
          'except urllib.error.HTTPError as error:',
          '    print(error.code)',
          'PY',
          'sleep 6; echo done',
        ].join('\n'),
        language: 'bash',
      },
    },
  ],
  tools: [{ type: 'code_execution' }],
  environment: {
    type: 'remote',
    network: { allowlist: [{ domain: 'allowed.hookbox.test' }] },
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
  },
};

let server: RunningServer;
let browser: Browser;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-console-')),
    logger,
    startEngine: false,
  });
  // The console needs an admin key (docs/console.md).
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(KEY), quotas: DEFAULT_TENANT_QUOTAS },
    ],
    logger,
    controller,
  });
  profile = mkdtempSync(join(tmpdir(), 'hookbox-chromium-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  page = await browser.newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    // The refused sign-in's 401 is logged by the browser itself; anything else is a fault.
    if (message.type() === 'error' && !message.text().includes('status of 401'))
      pageErrors.push(message.text());
  });
  await page.setViewport({ width: 1280, height: 800 });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await server?.close();
});

const textOf = (selector: string) =>
  page.$eval(selector, (element) => (element as HTMLElement).innerText);

describe('the console in a browser', () => {
  it('refuses a wrong key, signs in with the right one and keeps it out of the URL', async () => {
    await page.goto(`${server.url}/console`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#api-key');
    await page.type('#api-key', 'not-the-right-key');
    await page.locator('button[type=submit]').click();
    await page.waitForSelector('[role=alert]');
    expect(await textOf('[role=alert]')).toContain('refused');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'sign-in-refused.png') });

    // fill: cleared and typed with input events, so a re-render cannot put the old text back.
    await page.locator('#api-key').fill(KEY);
    await page.locator('button[type=submit]').click();
    await page.waitForSelector('nav[aria-label=Console]');
    await page.waitForFunction(() =>
      document.querySelector('.live')?.textContent?.includes('Live'),
    );
    expect(page.url()).not.toContain(KEY);
    expect(await page.evaluate(() => Object.values<string>(sessionStorage))).toEqual([KEY]);
    expect(await textOf('h1')).toBe('Environments');
  });

  it('shows the environment while its interaction runs, then its denied call with the reason as text', async () => {
    let finished = false;
    const running = fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify(REQUEST),
    })
      .then((response) => response.json() as Promise<Interaction>)
      .finally(() => (finished = true));

    // Pushed over the live stream: no reload.
    const row = await page.waitForSelector('tr[data-environment]', { timeout: 30_000 });
    const environmentId = await row!.evaluate((element) =>
      element.getAttribute('data-environment'),
    );
    expect(environmentId).toMatch(/^env_/);
    await page.waitForFunction(
      () => document.querySelector('tr[data-environment]')?.textContent?.includes('blocked'),
      { timeout: 20_000 },
    );
    expect(finished).toBe(false);
    expect(await textOf('tr[data-environment]')).toContain('active');
    await page.screenshot({ path: join(IMAGES, 'console-environments.png') });

    const interaction = await running;
    expect(interaction.status).toBe('completed');
    expect(interaction.environment_id).toBe(environmentId);

    await page.locator(`a[href="#/environments/${environmentId}"]`).click();
    await page.waitForSelector('.step.denied');
    const denied = await textOf('.step.denied');
    expect(denied).toContain(HOSTILE_REASON);
    expect(denied).toContain('security-gate');
    expect(denied).toContain('deny');
    // The reason is text: no element was made from it, nothing ran.
    expect(await page.$$('.step script, .step img, #main script, #main img')).toHaveLength(0);
    expect(await page.evaluate(() => (window as { __hookboxPwned?: number }).__hookboxPwned)).toBe(
      undefined,
    );
    await page.waitForFunction(() => document.querySelectorAll('.timeline .step').length === 2);
    await page.screenshot({ path: join(IMAGES, 'console-denied-call.png'), fullPage: true });

    // The interaction's own timeline: every step, the denial highlighted.
    await page.locator(`a[href="#/interactions/${interaction.id}"]`).click();
    await page.waitForFunction(() => document.querySelectorAll('.timeline .step').length >= 5);
    expect(await page.$$eval('.timeline .step.denied', (steps) => steps.length)).toBe(2);
    expect(await textOf('.timeline')).toContain('done');
    await page.screenshot({ path: join(SHOTS, 'interaction.png'), fullPage: true });

    // Gate health counts the runs of the group.
    await page.locator('a[href="#/gates"]').click();
    await page.waitForSelector('#gate-health');
    const health = await textOf('#gate-health');
    expect(health).toContain('security-gate');
    expect(health).toMatch(/security-gate[\s\S]*2\s+50 %/);
    await page.screenshot({ path: join(SHOTS, 'gate-health.png') });

    // The egress refusal of the second call.
    await page.locator('a[href="#/egress"]').click();
    // The page refetches on every live event, so the table may be swapped out between two reads.
    await page.waitForFunction(() =>
      document.querySelector<HTMLElement>('#main table')?.innerText.includes('refused'),
    );
    const egress = await page.evaluate(
      () => document.querySelector<HTMLElement>('#main table')?.innerText ?? '',
    );
    expect(egress).toContain('elsewhere.hookbox.test');
    expect(egress).toContain('refused');
    expect(egress).toContain('allowlist');

    // Phone width: nothing wider than the screen.
    await page.goto(`${server.url}/console#/environments/${environmentId}`, {
      waitUntil: 'networkidle0',
    });
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.waitForSelector('.step.denied');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: join(SHOTS, 'environment-phone.png'), fullPage: true });
    await page.setViewport({ width: 1280, height: 800 });
  });

  it('deletes the environment from the list', async () => {
    await page.locator('a[href="#/environments"]').click();
    const row = await page.waitForSelector('tr[data-environment]');
    const environmentId = await row!.evaluate((element) =>
      element.getAttribute('data-environment'),
    );
    // Phone width without isMobile: switching isMobile reloads the page (Puppeteer's setViewport).
    await page.setViewport({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    await page.screenshot({ path: join(SHOTS, 'environments-phone.png'), fullPage: true });
    await page.setViewport({ width: 1280, height: 800 });
    await page.locator(`button[aria-label="Delete environment ${environmentId}"]`).click();
    await page.locator(`button[aria-label="Confirm delete ${environmentId}"]`).click();
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-environment]').length === 0,
      {
        timeout: 30_000,
      },
    );
    const answer = await fetch(`${server.url}/v1beta/environments/${environmentId}`, {
      headers: { 'x-goog-api-key': KEY },
    });
    expect(answer.status).toBe(404);
    expect(pageErrors).toEqual([]);
  });
});
