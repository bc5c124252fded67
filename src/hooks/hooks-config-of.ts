import { EMPTY_HOOKS_CONFIG, parseHooksConfig, type HooksConfig } from '../config/hooks-config.js';
import { sourceText, type PlacedSource } from '../config/sources.js';
import { scriptsNamed } from '../config/hook-scripts.js';
import { UserError } from '../errors/index.js';
import type { Allowlist } from '../network/allowlist.js';

/**
 * Reads the gates from the `.agents/hooks.json` source, if any (docs/contract.md §4: none means no hooks). An
 * `http` handler is refused unless the environment's `network.allowlist` lets its host through: it
 * leaves the sandbox only through the egress proxy (docs/contract.md §7), so it would otherwise never run.
 */
export function hooksConfigOf(sources: PlacedSource[], allowlist?: Allowlist): HooksConfig {
  const file = sources.find((source) => source.area === 'agents' && source.path === 'hooks.json');
  if (!file) return EMPTY_HOOKS_CONFIG;
  const config = parseHooksConfig(sourceText(file, '.agents/hooks.json'));
  const agentsFiles = sources
    .filter((source) => source.area === 'agents')
    .map((source) => source.path);
  for (const group of config.groups) {
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
      group[event].forEach((rule) =>
        rule.handlers.forEach((handler, index) => {
          if (handler.type === 'command') {
            // A script that is not among the sources would fail on every call, and under the
            // default on_error every call would go through: refused, as `hookbox validate` does.
            for (const script of scriptsNamed(handler.command)) {
              const named = script.relative.replace(/\/+$/, '');
              const present = agentsFiles.some(
                (path) => path === named || path.startsWith(`${named}/`),
              );
              if (present) continue;
              const field = `${rule.path}.hooks[${index}].command`;
              throw new UserError(
                'invalid_hooks_config',
                `.agents/hooks.json: ${field}: names ${script.inSandbox}, which is not among the sources; add it under .agents/ (or fix the path)`,
                { details: { field } },
              );
            }
          }
          if (handler.type === 'http') {
            const host = new URL(handler.url).hostname;
            if (allowlist?.match(host)) return;
            const field = `${rule.path}.hooks[${index}].url`;
            throw new UserError(
              'unsupported',
              allowlist
                ? `.agents/hooks.json: ${field}: "http" handlers need a network.allowlist that names ${host}, and this environment's allowlist does not; refused rather than silently never run`
                : `.agents/hooks.json: ${field}: "http" handlers need a network.allowlist that names ${host} (docs/contract.md §7), and this environment has no network; refused rather than silently never run`,
              { details: { field } },
            );
          }
        }),
      );
    }
  }
  return config;
}

export function hooksJsonOf(sources: PlacedSource[]): string | null {
  const file = sources.find((source) => source.area === 'agents' && source.path === 'hooks.json');
  return file ? sourceText(file, '.agents/hooks.json') : null;
}
