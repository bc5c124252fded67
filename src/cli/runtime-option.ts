import { checkRuntimeName } from '../sandbox/sandbox-options.js';

/**
 * `--runtime NAME` (call, test, serve) as Controller options: checked here so a bad name is an exit-2
 * error naming the flag, before any engine call. Unset: the controller's default ($HOOKBOX_RUNTIME,
 * else runc). docs/gvisor.md.
 */
export function runtimeOption(value: string | undefined): { runtime?: string } {
  return value === undefined ? {} : { runtime: checkRuntimeName(value, '--runtime') };
}
