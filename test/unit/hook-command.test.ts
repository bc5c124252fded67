/**
 * A command handler runs as `/bin/sh -c COMMAND`; the agent puts `exec ` before a command that is
 * one plain external program, as bash and upstream dash do themselves
 * (sandbox-image/agent/hook_command.py; docs/gates.md, "Prestart and workers"). Here: which
 * commands get it, and that for those the shell gives the same output and exit code both ways
 * (the host's /bin/sh, dash on Debian as in the sandbox image).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mapAgentFunction } from './agent-python.js';

const EXECED = [
  'python3 /.agents/hooks-scripts/gate.py',
  '  python3 /.agents/gate.py --mode=strict  ',
  '/usr/bin/env python3 /x.py',
  './gate.py a,b c:d e@f 50% +1',
  'node\t/.agents/gate.js',
];

const AS_WRITTEN = [
  'python3 gate.py; true',
  'python3 gate.py && echo done',
  'python3 gate.py | cat',
  'python3 gate.py > /tmp/out',
  'python3 gate.py 2>/dev/null',
  'python3 "/a b.py"',
  "python3 '/a.py'",
  'python3 $HOME/gate.py',
  'python3 ~/gate.py',
  'python3 `which gate`',
  'python3 gate.py &',
  'python3 *.py',
  'python3 gate.py # note',
  'python3 gate\\.py',
  'python3 gate.py\npython3 other.py',
  'FOO=1 python3 gate.py',
  'true',
  'echo {"decision":"allow"}',
  'cd /tmp',
  'exit 2',
  'exec python3 gate.py',
  'command python3 gate.py',
  'if true',
  '{ python3 gate.py; }',
  '-x gate',
  '',
  '   ',
];

const argvs = (commands: string[]) =>
  mapAgentFunction<string[]>('hook_command', 'hook_argv', commands);

describe('the argv of a command handler', () => {
  it('puts exec before one plain external program, and only there', () => {
    const execed = argvs(EXECED);
    EXECED.forEach((command, i) =>
      expect(execed[i], command).toEqual(['/bin/sh', '-c', `exec ${command.trim()}`]),
    );
    const asWritten = argvs(AS_WRITTEN);
    AS_WRITTEN.forEach((command, i) =>
      expect(asWritten[i], JSON.stringify(command)).toEqual(['/bin/sh', '-c', command]),
    );
  });

  it('gives the same output and exit code as the command run without exec', () => {
    const commands = [
      '/bin/echo plain words a=b',
      'ls /no-such-folder-here',
      'env -i /bin/true',
      '/bin/false',
      'no-such-program-anywhere --flag',
      './no-such-relative-program',
      '/etc/hostname',
      'expr 6 + 7',
      'sh -c exit',
    ];
    const execed = argvs(commands);
    commands.forEach((command, i) => {
      expect(execed[i]![2], command).toBe(`exec ${command}`);
      const plain = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', cwd: '/' });
      const viaExec = spawnSync(execed[i]![0]!, execed[i]!.slice(1), {
        encoding: 'utf8',
        cwd: '/',
      });
      expect(viaExec.status, command).toBe(plain.status);
      expect(viaExec.stdout, command).toBe(plain.stdout);
      expect(viaExec.stderr === '', command).toBe(plain.stderr === '');
    });
  });
});
