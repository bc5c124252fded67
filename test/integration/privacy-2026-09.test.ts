import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hookbox } from '../../src/client/index.js';
import { Controller } from '../../src/controller/controller.js';
import { createLogger } from '../../src/record/logger.js';
import { startServer, type RunningServer } from '../../src/server/index.js';

// The privacy example of the 2026-09 hooks page: matcher view_file, two interactions in one
// environment. The page's own script reads args.path, which view_file does not have (it takes
// AbsolutePath): that script never denies under 2026-09 (docs/vocabularies.md, pitfalls). This gate
// reads the argument the 2026-09 vocabulary gives, verbatim.
const GATE = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
path = str(data.get("tool_call", {}).get("args", {}).get("AbsolutePath", ""))
if "/private/" in path:
    resp = {"decision": "deny", "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."}
else:
    resp = {"decision": "allow"}
print(json.dumps(resp))
`;
const HOOKS = {
  'privacy-gate': {
    pre_tool_execution: [
      {
        matcher: 'view_file',
        hooks: [
          {
            type: 'command',
            command: 'python3 /.agents/hooks-scripts/check_privacy.py',
            timeout: 5,
          },
        ],
      },
    ],
  },
};
const KEY = 'privacy-09-key';

let server: RunningServer;
let client: Hookbox;
beforeAll(async () => {
  const logger = createLogger({ level: 'silent' });
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-privacy-')),
    logger,
    startEngine: false,
  });
  server = await startServer({ host: '127.0.0.1', port: 0, apiKeys: [KEY], logger, controller });
  client = new Hookbox({ baseUrl: server.url, apiKey: KEY });
});
afterAll(() => server?.close());

describe('the 2026-09 privacy example over HTTP with the scripted agent', () => {
  it('blocks view_file of /workspace/private/…, then reads /workspace/public/… in the same environment', async () => {
    const first = await client.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'text',
          text: 'Use your filesystem tool to read /workspace/private/employees.json and summarize the employee details.',
        },
        {
          type: 'function_call',
          name: 'view_file',
          arguments: { AbsolutePath: '/workspace/private/employees.json' },
        },
      ],
      environment: {
        type: 'remote',
        sources: [
          { type: 'inline', target: '.agents/hooks.json', content: JSON.stringify(HOOKS) },
          { type: 'inline', target: '.agents/hooks-scripts/check_privacy.py', content: GATE },
          {
            type: 'inline',
            target: 'workspace/private/employees.json',
            content: '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
          },
          {
            type: 'inline',
            target: 'workspace/public/summary.json',
            content: '{"department": "Engineering", "team_size": 42, "status": "active"}',
          },
        ],
      },
    });
    const blocked = first.steps.find((step) => step.type === 'function_result');
    expect(blocked).toMatchObject({ is_error: true, blocked: true });
    expect(JSON.stringify(blocked)).toContain('blocked by PII compliance policy');
    expect(JSON.stringify(first.steps)).not.toContain('000-00-0000');

    const second = await client.interactions.create({
      agent: 'scripted',
      input: [
        {
          type: 'text',
          text: 'Understood. Please read the approved /workspace/public/summary.json file instead and provide the summary.',
        },
        {
          type: 'function_call',
          name: 'view_file',
          arguments: { AbsolutePath: '/workspace/public/summary.json' },
        },
      ],
      environment: first.environment_id,
      previous_interaction_id: first.id,
    });
    expect(second.environment_id).toBe(first.environment_id);
    const read = second.steps.find((step) => step.type === 'function_result');
    expect(read).toMatchObject({ is_error: false, blocked: false });
    expect(JSON.stringify(read)).toContain('Engineering');
    const call = second.steps.find((step) => step.type === 'function_call');
    expect(call).toMatchObject({ hooks: [{ group: 'privacy-gate', outcome: 'allow' }] });
  });
});
