// Kubernetes names a user can get wrong are refused with exit 2 and a message naming the flag, never
// a stack trace (docs/kubernetes.md).
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = {
    stdout: (text: string) => (out += text),
    stderr: (text: string) => (err += text),
    isTty: false,
  };
  const code = await main(args, io);
  return { code, out, err };
}

const manifests = ['k8s', 'manifests', '--controller-image', 'c:1', '--sandbox-image', 's:1'];

describe('hookbox k8s manifests', () => {
  it.each([
    ['--namespace', 'BAD_NS'],
    ['--namespace', '-lead'],
    ['--namespace', 'x'.repeat(64)],
    ['--secret', 'Upper'],
    ['--gvisor-runtime-class', 'with space'],
    ['--sandbox-image', ' '],
  ])('%s %j: exit 2 naming the flag, nothing printed on stdout', async (flag, value) => {
    const args = [...manifests];
    const at = args.indexOf(flag);
    if (at >= 0) args[at + 1] = value;
    else args.push(flag, value);
    const { code, out, err } = await run(args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`${flag}:`);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it('valid names print the objects in that namespace', async () => {
    const { code, out } = await run([
      ...manifests,
      '--namespace',
      'agents-1',
      '--secret',
      'db.creds',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('namespace: agents-1');
    expect(out).toContain('db.creds');
  });
});
