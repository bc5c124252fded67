import type { InteractionRequest } from '../../../src/interactions/schema.js';

/**
 * The request bodies of the Gemini API hooks page (`antigravity-preview-05-2026` version, REST tab),
 * as the page gives them, and a helper that runs one with the offline `scripted` agent.
 */

export const SECURITY_GATE_REQUEST = {
  agent: 'antigravity-preview-05-2026',
  input: [{ type: 'text', text: 'Run `rm -rf /tmp/forbidden` using code_execution.' }],
  tools: [{ type: 'code_execution' }],
  environment: {
    type: 'remote',
    sources: [
      {
        type: 'inline',
        target: '.agents/hooks.json',
        content:
          '{"security-gate": {"pre_tool_execution": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/gate.py", "timeout": 10}]}]}}',
      },
      {
        type: 'inline',
        target: '.agents/hooks-scripts/gate.py',
        content:
          '#!/usr/bin/env python3\nimport sys, json\ndata = json.load(sys.stdin)\ncmd = str(data.get("tool_call", {}).get("args", {}))\nif "rm -rf" in cmd:\n    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked by security gate."}))\nelse:\n    print(json.dumps({"decision": "allow"}))\n',
      },
    ],
  },
} satisfies InteractionRequest;

export const PRIVACY_REASON =
  'Access to confidential `/private/` records is blocked by PII compliance policy. Query approved `/public/` summary tables instead.';

export const PRIVACY_GATE_REQUEST = {
  agent: 'antigravity-preview-05-2026',
  input: [
    {
      type: 'text',
      text: 'Use your filesystem tool to read /workspace/private/employees.json and summarize the employee details.',
    },
  ],
  environment: {
    type: 'remote',
    sources: [
      {
        type: 'inline',
        target: '.agents/hooks.json',
        content:
          '{"privacy-gate": {"pre_tool_execution": [{"matcher": "read_file", "hooks": [{"type": "command", "command": "python3 /.agents/hooks-scripts/check_privacy.py", "timeout": 5}]}]}}',
      },
      {
        type: 'inline',
        target: '.agents/hooks-scripts/check_privacy.py',
        content:
          '#!/usr/bin/env python3\nimport sys, json\ndata = json.load(sys.stdin)\npath = str(data.get("tool_call", {}).get("args", {}).get("path", ""))\nif "/private/" in path:\n    resp = {"decision": "deny", "reason": "Access to confidential `/private/` records is blocked by PII compliance policy. Query approved `/public/` summary tables instead."}\nelse:\n    resp = {"decision": "allow"}\nprint(json.dumps(resp))\n',
      },
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
} satisfies InteractionRequest;

/** The second request of the privacy example; environment and previous id come from the first. */
export function privacyFollowUp(environmentId: string, interactionId: string) {
  return {
    agent: 'antigravity-preview-05-2026',
    input: [
      {
        type: 'text',
        text: 'Understood. Please read the approved /workspace/public/summary.json file instead and provide the summary.',
      },
    ],
    environment: environmentId,
    previous_interaction_id: interactionId,
  } satisfies InteractionRequest;
}

export const AUDIT_REQUEST = {
  agent: 'antigravity-preview-05-2026',
  input: [
    {
      type: 'text',
      text: 'Use your filesystem tool to create /workspace/audit.log containing event 1, then immediately read it back using your filesystem read tool.',
    },
  ],
  environment: {
    type: 'remote',
    sources: [
      {
        type: 'inline',
        target: '.agents/hooks.json',
        content:
          '{"audit-logging": {"post_tool_execution": [{"matcher": "read_file|write_file", "hooks": [{"type": "http", "url": "https://telemetry.example.com/api/v1/agent-events", "timeout": 10}]}]}}',
      },
    ],
    network: {
      allowlist: [
        {
          domain: 'telemetry.example.com',
          transform: { Authorization: 'Bearer telemetry_secret_token_123' },
        },
        { domain: '*' },
      ],
    },
  },
} satisfies InteractionRequest;

type Item = Extract<InteractionRequest['input'], unknown[]>[number];

/** The body with the `scripted` agent and, after its text, the calls the text asks for. */
export function scripted<T extends InteractionRequest & { input: Item[] }>(
  body: T,
  ...calls: Item[]
): T {
  return { ...structuredClone(body), agent: 'scripted', input: [...body.input, ...calls] };
}

export const codeCall = (code: string, language = 'bash'): Item => ({
  type: 'code_execution_call',
  arguments: { code, language },
});

export const toolCall = (name: string, args: Record<string, unknown>): Item => ({
  type: 'tool_call',
  name,
  arguments: args,
});
