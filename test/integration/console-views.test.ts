// The console's views of what hookbox keeps, in a real headless Chromium against a real server and
// real containers (docs/console.md, "What it shows"): a snapshot, a credential (whose value is in
// neither the page nor the console API's JSON), the template list, the warm pool, and an
// environment's audit log with the call the test made, its output shown as text. Screenshots go to
// docs/images/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { keyDigest } from '../../src/tenants/keys.js';
import { DEFAULT_TENANT_QUOTAS } from '../../src/tenants/tenant.js';

const CHROMIUM = process.env.HOOKBOX_CHROMIUM ?? '/usr/bin/chromium';
const IMAGES = join(process.cwd(), 'docs', 'images');
const ADMIN_KEY = 'console-views-key-0123';
const SECRET_VALUE = `never-shown-${Math.random().toString(36).slice(2)}`;
const MARK = `tool-said-${Math.random().toString(36).slice(2, 8)}`;

let server: RunningServer;
let browser: Browser;
let page: Page;
let profile: string;
let home: string;
let environmentId: string;
let snapshotId: string;
const pageErrors: string[] = [];

const call = async (path: string, init: { method?: string; body?: unknown } = {}) => {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-goog-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
  return { text, json: JSON.parse(text) as Record<string, unknown> };
};

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  home = mkdtempSync(join(tmpdir(), 'hookbox-console-views-'));
  const controller = await Controller.start({
    home,
    logger,
    startEngine: false,
    pool: { size: 1 },
    secretKey: 'a-passphrase-of-at-least-32-characters-for-tests',
  });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [],
    tenantKeys: [
      { name: 'ops', role: 'admin', digest: keyDigest(ADMIN_KEY), quotas: DEFAULT_TENANT_QUOTAS },
    ],
    logger,
    controller,
  });
  await controller.pool!.waitUntilReady(1);

  const done = await call('/v1beta/interactions', {
    method: 'POST',
    body: {
      agent: 'scripted',
      input: [{ type: 'code_execution_call', arguments: { code: `echo ${MARK}` } }],
      environment: { type: 'remote' },
    },
  });
  environmentId = done.json.environment_id as string;
  const snapshot = await call(`/v1beta/environments/${environmentId}/snapshots`, {
    method: 'POST',
  });
  snapshotId = snapshot.json.snapshot_id as string;
  await call('/v1beta/credentials', {
    method: 'POST',
    body: { name: 'deploy-token', value: SECRET_VALUE },
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
  await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#api-key');
  await page.type('#api-key', ADMIN_KEY);
  await page.locator('button[type=submit]').click();
  await page.waitForSelector('nav[aria-label=Console]');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (environmentId) await call(`/v1beta/environments/${environmentId}`, { method: 'DELETE' });
  if (snapshotId) await call(`/v1beta/snapshots/${snapshotId}`, { method: 'DELETE' });
  await server?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Opens a console route and waits until `text` is on the page. */
async function open(hash: string, text: string): Promise<string> {
  await page.evaluate((to) => (location.hash = to), hash);
  await page.waitForFunction((wanted) => document.body.innerText.includes(wanted), {}, text);
  return page.evaluate(() => document.body.innerText);
}

describe('the console views of what hookbox keeps', () => {
  it('lists the snapshot the test took', async () => {
    const text = await open('#/snapshots', snapshotId);
    expect(text).toContain(environmentId.slice(0, 12));
    await page.screenshot({ path: join(IMAGES, 'console-snapshots.png') });
  });

  it('lists the credential by name, and its value is in neither the page nor the API', async () => {
    await open('#/credentials', 'deploy-token');
    expect(await page.content()).not.toContain(SECRET_VALUE);
    const { text } = await call('/console/api/credentials');
    expect(text).toContain('deploy-token');
    expect(text).not.toContain(SECRET_VALUE);
    await page.screenshot({ path: join(IMAGES, 'console-credentials.png') });
  });

  it('lists the templates and the warm pool', async () => {
    const text = await open('#/templates', 'Warm pool');
    await page.waitForSelector('tr.pool-row');
    const pool = await page.$eval('tr.pool-row', (row) => (row as HTMLElement).innerText);
    expect(pool).toMatch(/default/);
    expect(pool).toMatch(/\b1\b/); // target 1
    expect(text).toContain('sandbox image');
    const { json } = await call('/console/api/templates');
    expect((json.templates as { name: string }[]).map((t) => t.name)).toContain('default');
    await page.screenshot({ path: join(IMAGES, 'console-templates.png') });
  });

  it("shows the environment's audit log with the recorded call, its output as text", async () => {
    await open(`#/environments/${environmentId}`, 'Audit log');
    await page.locator('a.audit-link').click();
    await page.waitForSelector('li.audit-tool_call');
    const entry = await page.$eval(
      'li.audit-tool_call pre.result',
      (element) => (element as HTMLElement).innerText,
    );
    expect(entry).toContain(MARK);
    expect(entry).not.toMatch(/^\s*[{"]/); // text, not a JSON string or object
    await page.screenshot({ path: join(IMAGES, 'console-audit-log.png') });
    expect(pageErrors).toEqual([]);
  });

  it("filters an environment's calls by outcome and tool", async () => {
    await open(`#/environments/${environmentId}`, 'Calls, newest first');
    await page.waitForSelector('#call-outcome');
    const items = () => page.$$eval('ol.timeline > li', (list) => list.length);
    expect(await items()).toBe(1);
    await page.select('#call-outcome', 'blocked');
    await page.waitForFunction(() => document.body.innerText.includes('No call matches'));
    expect(await items()).toBe(0);
    await page.select('#call-outcome', '');
    await page.select('#call-tool', 'code_execution');
    await page.waitForSelector('ol.timeline > li');
    expect(await items()).toBe(1);
    await page.type('#call-search', 'no-such-text');
    await page.waitForFunction(() => document.body.innerText.includes('No call matches'));
  });

  it('answers 404 for an audit log that does not exist (and never reads a path from the id)', async () => {
    const response = await fetch(`${server.url}/console/api/environments/..%2F..%2Fetc/audit`, {
      headers: { 'x-goog-api-key': ADMIN_KEY },
    });
    expect(response.status).toBe(404);
  });
});
