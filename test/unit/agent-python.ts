// Calls a function of the sandbox agent's Python (sandbox-image/agent) over a list of arguments,
// with the host's python3, for unit tests of the agent's pure logic.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

/** `[module.fn(arg) for arg in args]`, each argument and result passed as JSON. */
export function mapAgentFunction<T>(module: string, fn: string, args: readonly unknown[]): T[] {
  const agent = join(packageRoot(), 'sandbox-image', 'agent');
  const script = `import importlib, json, sys
sys.path.insert(0, sys.argv[1])
fn = getattr(importlib.import_module(sys.argv[2]), sys.argv[3])
print(json.dumps([fn(arg) for arg in json.load(sys.stdin)]))`;
  const out = execFileSync('python3', ['-I', '-c', script, agent, module, fn], {
    input: JSON.stringify(args),
    encoding: 'utf8',
  });
  return JSON.parse(out) as T[];
}
