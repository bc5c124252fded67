import { join } from 'node:path';
import { packageRoot } from '../../paths.js';
import { Controller } from '../../controller/controller.js';
import { callText } from '../format.js';
import type { CliIo } from '../io.js';
import { buildProgressFor, createProgress } from '../progress.js';
import { readSourcesDir } from '../sources-dir.js';
import { isExecResult } from '../../tools/results.js';

/**
 * `hookbox demo`: the security gate of the Gemini hooks page (examples/security-gate) blocks
 * `rm -rf /tmp/forbidden` and lets `echo hello` through. Exits 1 if either does not happen.
 */
export async function demoCommand(io: CliIo): Promise<number> {
  const sources = readSourcesDir(join(packageRoot(), 'examples', 'security-gate'));
  const progress = createProgress(io);
  const controller = await Controller.start({
    onProgress: buildProgressFor(io, progress),
    auditRetention: {},
  }).finally(() => progress.done());
  const environment = await controller.createEnvironment({ sources });
  io.stdout(`environment ${environment.id} (gates from examples/security-gate/.agents)\n\n`);
  try {
    const blocked = await environment.call({
      name: 'code_execution',
      args: { code: 'rm -rf /tmp/forbidden', language: 'bash' },
    });
    io.stdout(callText(blocked) + '\n');
    const allowed = await environment.call({
      name: 'code_execution',
      args: { code: 'echo hello', language: 'bash' },
    });
    io.stdout(callText(allowed) + '\n');
    const ok =
      blocked.blocked &&
      !allowed.blocked &&
      isExecResult(allowed.result) &&
      allowed.result.stdout === 'hello\n';
    io.stdout(
      ok
        ? 'demo ok: the gate blocked the destructive command and let `echo hello` through\n'
        : 'demo FAILED\n',
    );
    return ok ? 0 : 1;
  } finally {
    await environment.delete();
  }
}
