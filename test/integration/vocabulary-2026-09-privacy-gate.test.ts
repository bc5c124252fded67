// The privacy gate of the Gemini 09 hooks page through `hookbox call --vocabulary 2026-09`, in real
// containers: the corrected script, and the published one's pitfall (docs/vocabularies.md). The
// batch runner: vocabulary-2026-09-helpers.ts.
import { describe, expect, it } from 'vitest';
import { batch, type Call, hooksJson, v09 } from './vocabulary-2026-09-helpers.js';

describe('the privacy gate of the Gemini 09 hooks page (matcher view_file)', () => {
  const hooks = hooksJson({
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
  });
  // Verbatim from the page: it reads args.path, which view_file does not have in 2026-09.
  const PAGE_SCRIPT = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
path = str(data.get("tool_call", {}).get("args", {}).get("path", ""))

if "/private/" in path:
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;
  // Corrected: reads AbsolutePath (path for 2026-05), and resolves it as the tool will, so a
  // relative path or ".." cannot slip past the check.
  const FIXED_SCRIPT = `#!/usr/bin/env python3
import sys, json, os.path
data = json.load(sys.stdin)
args = data.get("tool_call", {}).get("args", {})
path = str(args.get("AbsolutePath") or args.get("path") or "")
path = os.path.normpath(os.path.join("/workspace", path))

if path.startswith("/workspace/private/") or path == "/workspace/private":
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;
  const workspace = {
    'workspace/private/employees.json':
      '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
    'workspace/public/summary.json':
      '{"department": "Engineering", "team_size": 42, "status": "active"}',
  };
  const reads: Call[] = [
    { name: 'view_file', args: { AbsolutePath: '/workspace/private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: 'private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: '/workspace/public/../private/employees.json' } },
    { name: 'view_file', args: { AbsolutePath: '/workspace/public/summary.json' } },
  ];

  it('the corrected script (AbsolutePath) blocks /workspace/private/…, allows /workspace/public/…', async () => {
    const out = await batch(
      {
        '.agents/hooks.json': hooks,
        '.agents/hooks-scripts/check_privacy.py': FIXED_SCRIPT,
        ...workspace,
      },
      reads,
      ...v09,
    );
    expect(out.map((outcome) => outcome.blocked)).toEqual([true, true, true, false]);
    expect(out[0]!.reason).toMatch(/^Access to confidential `\/private\/` records is blocked/);
    expect(out[3]!.result!.content).toBe(
      '1: {"department": "Engineering", "team_size": 42, "status": "active"}',
    );
  });

  it("the page's script as published (args.path) never blocks a 2026-09 view_file: the pitfall, pinned", async () => {
    const out = await batch(
      {
        '.agents/hooks.json': hooks,
        '.agents/hooks-scripts/check_privacy.py': PAGE_SCRIPT,
        ...workspace,
      },
      reads.slice(0, 1),
      ...v09,
    );
    expect(out[0]!.blocked).toBe(false);
    expect(out[0]!.hooks[0]!.outcome).toBe('allow');
    expect(out[0]!.result!.content).toContain('000-00-0000');
  });
});
