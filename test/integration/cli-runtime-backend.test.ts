// The CLI of the gVisor, Kubernetes and PostgreSQL options: `--runtime` runs the call under runsc,
// bad values are exit 2 naming the flag, `hookbox doctor` reports runsc, `hookbox k8s manifests`
// prints valid objects (docs/gvisor.md, docs/kubernetes.md).
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { cli, sourcesDir, type PrintedOutcome } from './cli-helpers.js';

describe('--runtime', () => {
  it('hookbox call --runtime runsc runs the tool code under gVisor', async () => {
    const result = await cli(
      'call',
      '--sources',
      sourcesDir({ 'workspace/x.txt': 'x\n' }),
      '--runtime',
      'runsc',
      '--tool',
      'code_execution',
      '--args',
      JSON.stringify({ code: 'uname -r; cat x.txt' }),
      '--json',
    );
    expect(result.code, result.stderr).toBe(0);
    const outcome = JSON.parse(result.stdout) as PrintedOutcome;
    expect(outcome.result?.stdout).toBe('4.4.0\nx\n');
  });

  it.each([['call'], ['test'], ['serve']])(
    'hookbox %s --runtime with a bad name is exit 2 naming --runtime',
    async (command) => {
      const args =
        command === 'call'
          ? [
              'call',
              '--sources',
              sourcesDir({}),
              '--tool',
              'code_execution',
              '--args',
              '{"code":"true"}',
            ]
          : command === 'test'
            ? ['test', 'fixtures']
            : ['serve', '--port', '0'];
      const result = await cli(...args, '--runtime', 'Bad Runtime!');
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--runtime: must be an OCI runtime name/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('hookbox doctor reports the runsc runtime', async () => {
    const result = await cli('doctor');
    expect(result.stdout).toMatch(/✔ gVisor runtime runsc registered \(.*--platform=ptrace/);
  });
});

describe('serve: backend and state flags', () => {
  it('--backend other than docker or kubernetes is exit 2', async () => {
    const result = await cli('serve', '--port', '0', '--backend', 'nomad');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--backend: must be docker or kubernetes/);
  });

  it('--backend kubernetes without --sandbox-image is exit 2', async () => {
    const result = await cli('serve', '--port', '0', '--backend', 'kubernetes');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--sandbox-image: required with --backend kubernetes/);
  });

  it('--state-url that is not postgres:// is exit 2, the password not shown', async () => {
    const result = await cli('serve', '--port', '0', '--state-url', 'mysql://u:hunter2@h/db');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--state-url: must be a postgres:\/\//);
    expect(result.stderr).not.toContain('hunter2');
  });
});

describe('hookbox k8s manifests', () => {
  it('prints the deployment as YAML documents', async () => {
    const result = await cli(
      'k8s',
      'manifests',
      '--controller-image',
      'r/c:1',
      '--sandbox-image',
      'r/s:1',
      '--replicas',
      '3',
      '--gvisor-runtime-class',
      'gvisor',
    );
    expect(result.code, result.stderr).toBe(0);
    const objects = parseAllDocuments(result.stdout).map(
      (doc) => doc.toJS() as { kind: string; spec?: { replicas?: number } },
    );
    expect(objects.map((o) => o.kind)).toContain('RuntimeClass');
    expect(objects.find((o) => o.kind === 'Deployment')?.spec?.replicas).toBe(3);
  });

  it('--replicas 0 is exit 2 naming the flag', async () => {
    const result = await cli(
      'k8s',
      'manifests',
      '--controller-image',
      'a',
      '--sandbox-image',
      'b',
      '--replicas',
      '0',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--replicas: must be a whole number/);
  });
});
