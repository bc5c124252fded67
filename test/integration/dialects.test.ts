import { describe, expect, it } from 'vitest';
import { bash, hooksJson, inline, useController, withEnvironment } from './helpers.js';

/**
 * Real hook scripts written in Claude Code's and Antigravity CLI's documented formats, run as gates
 * in real sandboxes (docs/dialects.md).
 */
const controller = useController();

/** A Claude Code guard in bash + jq: exit 2, JSON decisions, updatedInput, additionalContext. */
const CLAUDE_GUARD = `#!/bin/bash
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_name')
cmd=$(echo "$input" | jq -r '.tool_input.command // empty')
[ "$(echo "$input" | jq -r '.hook_event_name')" = PreToolUse ] || exit 1
[ "$(echo "$input" | jq -r '.cwd')" = /workspace ] || exit 1
[ "$CLAUDE_PROJECT_DIR" = /workspace ] || exit 1
echo "$input" | jq -e '.session_id and .tool_use_id' >/dev/null || exit 1
case "$cmd" in
  *"rm -rf"*) echo "Blocked by the Claude guard: rm -rf" >&2; exit 2 ;;
  *deny-json*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "json says no"}}' ;;
  *legacy*) echo '{"decision": "block", "reason": "legacy block"}' ;;
  *rewrite-me*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {command: "echo rewritten"}, additionalContext: "the guard rewrote the command"}}' ;;
  *break-me*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: {command: 42}}}' ;;
  *ask-me*) jq -n '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "a human should look"}}' ;;
  *) jq -n --arg t "$tool" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "allow", permissionDecisionReason: ("ok " + $t)}}' ;;
esac
`;

/** A Claude Code hook in JavaScript (node): blocks writes to .env files. */
const CLAUDE_NODE = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.tool_name === 'Write' && input.tool_input.file_path.endsWith('.env')) {
  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no writing ' + input.tool_input.file_path } }));
}
`;

/** A Claude Code PostToolUse hook: its context reaches the model. */
const CLAUDE_POST = `#!/bin/bash
input=$(cat)
out=$(echo "$input" | jq -r '.tool_response.stdout')
jq -n --arg o "$out" '{hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: ("post saw: " + $o)}}'
`;

const claudeHooks = hooksJson({
  claude: {
    dialect: 'claude-code',
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: '/.agents/hooks-scripts/guard.sh' }] },
      {
        matcher: 'Write|Edit',
        hooks: [{ type: 'command', command: 'node /.agents/hooks-scripts/env-guard.js' }],
      },
    ],
    PostToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: '/.agents/hooks-scripts/post.sh' }] },
    ],
  },
});
const claudeSources = [
  claudeHooks,
  inline('.agents/hooks-scripts/guard.sh', CLAUDE_GUARD),
  inline('.agents/hooks-scripts/env-guard.js', CLAUDE_NODE),
  inline('.agents/hooks-scripts/post.sh', CLAUDE_POST),
];

describe('claude-code dialect', () => {
  it('exit 2 blocks with stderr; JSON deny and legacy block block; allow lets through', async () => {
    await withEnvironment(controller, { sources: claudeSources }, async (environment) => {
      const exit2 = await environment.call(bash('rm -rf /tmp/x'));
      expect(exit2).toMatchObject({ blocked: true, reason: 'Blocked by the Claude guard: rm -rf' });
      expect(exit2.hooks[0]).toMatchObject({
        outcome: 'deny',
        exit_code: 2,
        dialect: 'claude-code',
      });
      expect(exit2.hooks[0]!.raw_answer).toContain('rm -rf');

      expect(await environment.call(bash('echo deny-json'))).toMatchObject({
        blocked: true,
        reason: 'json says no',
      });
      expect(await environment.call(bash('echo legacy'))).toMatchObject({
        blocked: true,
        reason: 'legacy block',
      });

      const allowed = await environment.call(bash('echo fine'));
      expect(allowed.blocked).toBe(false);
      expect(allowed.result).toMatchObject({ stdout: 'fine\n' });
      expect(allowed.hooks[0]).toMatchObject({ outcome: 'allow', reason: 'ok Bash' });
      expect(allowed.additional_context).toEqual(['post saw: fine']);
    });
  });

  it('updatedInput rewrites the call (recorded with the original); an invalid rewrite blocks', async () => {
    await withEnvironment(controller, { sources: claudeSources }, async (environment) => {
      const rewritten = await environment.call(bash('echo rewrite-me'));
      expect(rewritten.blocked).toBe(false);
      expect(rewritten.tool_call.args).toEqual({ code: 'echo rewritten', language: 'bash' });
      expect(rewritten.original_args).toEqual({ code: 'echo rewrite-me', language: 'bash' });
      expect(rewritten.result).toMatchObject({ stdout: 'rewritten\n' });
      expect(rewritten.hooks[0]).toMatchObject({
        updated_args: { code: 'echo rewritten', language: 'bash' },
        additional_context: 'the guard rewrote the command',
      });
      expect(rewritten.additional_context?.[0]).toBe('the guard rewrote the command');
      const logged = environment
        .records()
        .find((entry) => entry.kind === 'tool_call' && entry.call_id === rewritten.call_id);
      expect(logged).toMatchObject({
        tool_call: { args: { code: 'echo rewrite-me' } },
        rewritten_args: { code: 'echo rewritten' },
      });

      const broken = await environment.call(bash('echo break-me'));
      expect(broken.blocked).toBe(true);
      expect(broken.reason).toMatch(/updatedInput was refused/);
    });
  });

  it('ask with no approver blocks with "approval required"', async () => {
    await withEnvironment(controller, { sources: claudeSources }, async (environment) => {
      const asked = await environment.call(bash('echo ask-me'));
      expect(asked).toMatchObject({
        blocked: true,
        reason: 'approval required: a human should look',
      });
      expect(asked.hooks[0]!.outcome).toBe('ask');
    });
  });

  it('a node hook gates the file tools under their Claude Code names', async () => {
    await withEnvironment(controller, { sources: claudeSources }, async (environment) => {
      const env = await environment.call({
        name: 'write_file',
        args: { path: '.env', content: 'SECRET=1' },
      });
      expect(env).toMatchObject({ blocked: true, reason: 'no writing /workspace/.env' });
      const ok = await environment.call({
        name: 'write_file',
        args: { path: 'notes.txt', content: 'hi' },
      });
      expect(ok.blocked).toBe(false);
      expect(ok.hooks[0]).toMatchObject({ outcome: 'allow', exit_code: 0 });
    });
  });

  it('a hook whose interpreter is missing fails with a clear recorded error', async () => {
    const sources = [
      hooksJson({
        claude: {
          dialect: 'claude-code',
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: 'ruby /.agents/hooks-scripts/x.rb' }],
            },
          ],
        },
      }),
      inline('.agents/hooks-scripts/x.rb', 'exit 2\n'),
    ];
    await withEnvironment(controller, { sources }, async (environment) => {
      const outcome = await environment.call(bash('echo hi'));
      expect(outcome.blocked).toBe(false);
      expect(outcome.hooks[0]).toMatchObject({ outcome: 'error', exit_code: 127 });
      expect(outcome.hooks[0]!.reason).toMatch(/ruby.*not found/);
    });
  });
});

/** An Antigravity CLI hook in python: the answers of the agy docs. */
const AGY_GUARD = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
call = data["toolCall"]
assert data["workspacePaths"] == ["/workspace"]
line = call["args"].get("CommandLine", "")
if "rm -rf" in line: print(json.dumps({"decision": "deny", "reason": "agy says no"}))
elif "silent" in line: print("{}")
elif "force" in line: print(json.dumps({"decision": "force_ask", "reason": "always ask"}))
elif "ask" in line: print(json.dumps({"decision": "ask", "reason": "maybe"}))
else: print(json.dumps({"decision": "allow"}))
`;

describe('antigravity-cli dialect', () => {
  const sources = [
    hooksJson({
      agy: {
        dialect: 'antigravity-cli',
        PreToolUse: [
          {
            matcher: 'run_command',
            hooks: [{ type: 'command', command: 'python3 /.agents/hooks-scripts/agy.py' }],
          },
        ],
      },
    }),
    inline('.agents/hooks-scripts/agy.py', AGY_GUARD),
  ];
  it('deny, allow, {} and force_ask, read the Antigravity way', async () => {
    await withEnvironment(controller, { sources }, async (environment) => {
      expect(await environment.call(bash('rm -rf /tmp/y'))).toMatchObject({
        blocked: true,
        reason: 'agy says no',
      });
      const allowed = await environment.call(bash('echo go'));
      expect(allowed.blocked).toBe(false);
      expect(allowed.hooks[0]).toMatchObject({
        outcome: 'allow',
        dialect: 'antigravity-cli',
        raw_answer: '{"decision": "allow"}\n',
      });
      const empty = await environment.call(bash('echo silent'));
      expect(empty.blocked).toBe(true);
      expect(empty.hooks[0]).toMatchObject({ outcome: 'deny', raw_answer: '{}\n' });
      const forced = await environment.call(bash('echo force'));
      expect(forced).toMatchObject({ blocked: true, reason: 'approval required: always ask' });
      expect(forced.hooks[0]).toMatchObject({ outcome: 'ask', force: true });
      // read_file is view_file to Antigravity: the run_command matcher does not fire.
      const read = await environment.call({ name: 'list_files', args: { path: '.' } });
      expect(read.hooks).toEqual([]);
    });
  });
});
