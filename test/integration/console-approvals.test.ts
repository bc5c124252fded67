// The console shows calls waiting for an approval (docs/console.md; `ask`, docs/dialects.md), in a
// real headless Chromium against a real server: the count on the Interactions page, and the call,
// the hook's reason (as text, never HTML) and its expiry on the interaction's page.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { connectClient, MCP_INLINE_SOURCES, textOf } from './mcp-helpers.js';

const CHROMIUM = process.env.HOOKBOX_CHROMIUM ?? '/usr/bin/chromium';
const ASK_GATE = `import json, sys
json.load(sys.stdin)
print(json.dumps({"decision": "ask", "reason": "needs a human <b>now</b>"}))
`;

let server: RunningServer;
let browser: Browser;
let profile: string;

beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-console-approvals-')),
    logger,
    startEngine: false,
  });
  // No key: loopback only, and its one user is the admin (docs/tenants.md).
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [], logger, controller });
  profile = mkdtempSync(join(tmpdir(), 'hookbox-chromium-'));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await server?.close();
});

describe('the console and pending approvals', () => {
  it('lists the waiting call with its reason as text', async () => {
    const response = await fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: 'scripted',
        input: [{ type: 'code_execution_call', arguments: { code: 'echo ask-me' } }],
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

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    // The page holds its live stream open: never network-idle.
    await page.goto(`${server.url}/console#/interactions`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.notice');
    // A server without keys has no sign-in, so nothing to sign out of.
    expect(
      await page.$$eval('header button', (found) => found.map((b) => b.textContent)),
    ).not.toContain('Sign out');
    expect(await page.$eval('.notice', (e) => (e as HTMLElement).innerText)).toMatch(
      /1 interaction\(s\)\s+waiting for an approval/,
    );

    await page.evaluate((id) => (location.hash = `#/interactions/${id}`), paused.id);
    await page.waitForSelector('.approvals');
    const shown = await page.$eval('.approvals', (e) => (e as HTMLElement).innerText);
    expect(shown).toContain(callId);
    expect(shown).toContain('needs a human <b>now</b>');
    // The hook's reason is text: no element was made from it.
    expect(await page.$$eval('.approvals b', (found) => found.length)).toBe(0);

    // On the environment's page the held call is waiting, not blocked.
    await page.evaluate((id) => (location.hash = `#/environments/${id}`), paused.environment_id);
    await page.waitForSelector('.step.waiting');
    expect(await page.$eval('.step.waiting', (e) => (e as HTMLElement).innerText)).toContain(
      'Held: waiting for approval: needs a human <b>now</b>',
    );
    expect(await page.$$('.step.denied')).toHaveLength(0);
    // In the environments list its last call is waiting too, and the Last call filter finds it.
    await page.evaluate(() => (location.hash = '#/environments'));
    await page.waitForSelector(`tr[data-environment="${paused.environment_id}"]`);
    await page.select('#environment-outcome', 'waiting');
    await page.waitForFunction(
      (id) =>
        (
          document.querySelector(`tr[data-environment="${id}"]`) as HTMLElement | null
        )?.innerText.includes('waiting'),
      {},
      paused.environment_id,
    );
    await page.select('#environment-outcome', 'blocked');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-environment]').length === 0,
    );
    await page.evaluate((id) => (location.hash = `#/interactions/${id}`), paused.id);
    await page.waitForSelector(`button[aria-label="Deny ${callId}"]`);

    // Denied from the console: the API then shows the call denied.
    await page.locator(`button[aria-label="Deny ${callId}"]`).click();
    await page.waitForFunction(
      () => document.querySelector('.approvals')?.textContent?.includes('Denied; continued in'),
      { timeout: 60_000 },
    );
    const seen = (await (
      await fetch(`${server.url}/v1beta/interactions/${paused.id}`)
    ).json()) as Interaction;
    expect(seen.pending_approvals![0]).toMatchObject({ call_id: callId, status: 'denied' });
    expect(errors).toEqual([]);
  });

  it('shows a call over MCP waiting for approval on its environment page, and Approve runs it', async () => {
    const made = await fetch(`${server.url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: 'scripted',
        input: 'x',
        environment: { type: 'remote', sources: MCP_INLINE_SOURCES },
      }),
    });
    const { environment_id: id } = (await made.json()) as { environment_id: string };
    // The SDK's client without elicitation: the ask waits for the console (docs/mcp.md, "ask").
    const client = await connectClient(
      new StreamableHTTPClientTransport(new URL(`${server.url}/v1beta/environments/${id}/mcp`)),
    );
    try {
      const result = client.callTool({
        name: 'code_execution',
        arguments: { code: "echo 'please-ask <i>console</i>-ran'" },
      });
      let callId: string | undefined;
      while (callId === undefined) {
        const listed = (await (
          await fetch(`${server.url}/v1beta/environments/${id}/approvals`)
        ).json()) as { approvals: { call_id: string }[] };
        callId = listed.approvals[0]?.call_id;
        if (callId === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }

      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      await page.goto(`${server.url}/console#/environments/${id}`, {
        waitUntil: 'domcontentloaded',
      });
      await page.waitForSelector('.mcp-approvals');
      const shown = await page.$eval('.mcp-approvals', (e) => (e as HTMLElement).innerText);
      expect(shown).toContain(callId);
      expect(shown).toContain('a human must look at this one');
      expect(shown).toContain('hookbox-test-client');
      expect(shown).toContain('<i>console</i>-ran');
      expect(await page.$$eval('.mcp-approvals i', (found) => found.length)).toBe(0);

      await page.locator('.mcp-approvals button').click();
      const ran = await result;
      expect(ran.isError).toBeFalsy();
      expect(textOf(ran)).toContain('please-ask <i>console</i>-ran');
      await page.waitForFunction(() => !document.querySelector('.mcp-approvals li button'));
      const environment = server.service.controller
        .listEnvironments()
        .find((candidate) => candidate.id === id)!;
      expect(environment.records()).toContainEqual(
        expect.objectContaining({
          kind: 'approval',
          call_id: callId,
          status: 'approved',
          reason: 'approved in the console',
          decided_by: 'tenant local via the approvals API',
        }),
      );
      expect(errors).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
