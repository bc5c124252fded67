// What the snapshot tests put in a workspace and compare copies by.
import { hooksJson, inline, rule } from './helpers.js';

/** Denies any command that mentions `forbidden`. */
const GATE = `import json, sys
call = json.load(sys.stdin)["tool_call"]
if "forbidden" in json.dumps(call["args"]):
    print(json.dumps({"decision": "deny", "reason": "forbidden word"}))
`;

export const GATED = [
  hooksJson({ guard: { pre_tool_execution: [rule(undefined, 'python3 /.agents/gate.py')] } }),
  inline('.agents/gate.py', GATE),
];

/** Writes a few files, a private one, a symlink and an empty folder: what a copy must keep. */
export const FILL = [
  'mkdir -p sub/deep empty',
  'echo one > a.txt',
  'echo two > sub/deep/b.txt',
  'echo secret > private.txt && chmod 600 private.txt',
  'ln -s /etc/hostname link',
].join(' && ');

/** What a copy is compared by: names, modes, owners, link targets and contents. */
export const LIST =
  'find . -printf "%p %m %u %y %l\\n" | sort && cat a.txt sub/deep/b.txt private.txt';
