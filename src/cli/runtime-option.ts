import { checkRuntimeName } from '../sandbox/sandbox-options.js';

/**
 * The help of `--runtime` wherever it is offered: runsc's cost is said where it is chosen
 * (docs/gvisor.md, "What you give up").
 */
export const RUNTIME_OPTION_HELP =
  'OCI runtime of the sandboxes: runc, or runsc for gVisor (default runc); under runsc a process ' +
  'flood or a memory bomb ends the whole environment, not just the call (docs/gvisor.md)';

/**
 * `--runtime NAME` (call, test, serve) as Controller options: checked here so a bad name is an exit-2
 * error naming the flag, before any engine call. Unset: the controller's default ($HOOKBOX_RUNTIME,
 * else runc). docs/gvisor.md.
 */
export function runtimeOption(value: string | undefined): { runtime?: string } {
  return value === undefined ? {} : { runtime: checkRuntimeName(value, '--runtime') };
}
