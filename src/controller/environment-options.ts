import type { InlineSource } from '../config/sources.js';
import type { NetworkOptions } from '../network/allowlist.js';
import type { ToolEnvValue } from './tool-env.js';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';
import type { VocabularyId } from '../tools/registry.js';

/** How to make an environment. */
export interface EnvironmentOptions {
  /** Files to place: `.agents/…` (hooks.json and hook scripts) and `workspace/…` (docs/contract.md §3). */
  sources?: InlineSource[];
  /**
   * The tool vocabulary the environment speaks: `'2026-09'` (the current Gemini agent's tools:
   * `view_file`, `write_to_file`, `replace_file_content`, `list_dir`, … with PascalCase arguments) or
   * `'2026-05'` (docs/contract.md §5: `read_file`, `write_file`, `list_files`, …). Hooks see its names and arguments
   * verbatim. See docs/vocabularies.md; `vocabularyForAgent` picks it from a Gemini agent name.
   * @default '2026-09'
   */
  vocabulary?: VocabularyId;
  /**
   * Timeout of one tool call, in milliseconds; on expiry the whole process tree is killed.
   * @default 60000
   */
  toolTimeoutMs?: number;
  /**
   * Cap on each of stdout and stderr of a tool call, in bytes; past it `truncated` is true.
   * @default 1048576
   */
  outputCapBytes?: number;
  /**
   * Lets processes that tool code starts in the background outlive the call. Without it, every
   * process of the tool user is killed when a call ends.
   * @default false
   */
  backgroundProcesses?: boolean;
  /**
   * The template the environment runs: `default` (the sandbox image: bash, python3, node, git, jq,
   * curl, …), `full` (adds npm, python3-venv and pip, build-essential; built on first use), or one
   * built with `hookbox template build`. An unknown name is refused, listing the known ones. See
   * docs/templates.md.
   * @default 'default'
   */
  template?: string;
  /**
   * Environment variables for tool code (`code_execution`), name → value; hooks do not get them.
   * Names the sandbox sets itself (PATH, HOME, the proxy variables, HOOKBOX_*) are refused. See
   * docs/environments.md, "Environment variables". A value `{credential: 'cred_…'}` is a
   * placeholder: tool code sees an opaque token that only the egress proxy swaps for the
   * credential's value (docs/credentials.md, "Placeholders").
   * @default {}
   */
  env?: Record<string, ToolEnvValue>;
  /**
   * Makes the environment from a snapshot (`Controller.snapshotEnvironment`): its workspace, gates,
   * template, vocabulary, settings and network. Nothing else but `tenant` may be given with it. An
   * unknown or expired id is refused (404). See docs/environments.md, "Snapshots and forks".
   */
  snapshot?: string;
  /** Container limits (memory, CPU, pids) and `writableTmp`. */
  sandbox?: SandboxOptions;
  /**
   * Network access (docs/contract.md §7). Without it (or with `"disabled"` or an empty allowlist) the
   * environment has no network at all. With `{allowlist: [{domain, transform?}]}` its container sits
   * on an internal Docker network whose only way out is hookbox's egress proxy, which lets through
   * only the listed domains (`api.example.com`, `*.example.com`, `*`) and adds each entry's
   * `transform` headers to `http` hook requests on the wire: those values never enter the sandbox.
   * Tool code gets HTTP_PROXY/HTTPS_PROXY. See docs/network.md.
   * @default "disabled"
   */
  network?: NetworkOptions;
  /**
   * The tenant that owns the environment (`hookbox serve` sets the caller's; docs/tenants.md). It is
   * saved with the environment and carried by every entry of its audit log.
   * @default null (no tenant: only an admin sees it over HTTP)
   */
  tenant?: string | null;
  /**
   * Whether a warm-pool environment may be handed out for this request (when the pool has one that
   * fits). `hookbox serve` says no for a tenant past its pooled hand-outs per minute.
   * @default true
   */
  usePool?: boolean;
}

export const ENVIRONMENT_DEFAULTS = {
  toolTimeoutMs: 60_000,
  outputCapBytes: 1024 * 1024,
  backgroundProcesses: false,
  /** Cap on each of a hook handler's stdout and stderr, in bytes. */
  hookOutputCapBytes: 256 * 1024,
} as const;
