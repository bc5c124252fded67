import { EMPTY_HOOKS_CONFIG, parseHooksConfig, type HooksConfig } from '../config/hooks-config.js';
import type { PlacedSource } from '../config/sources.js';
import { UserError } from '../errors/index.js';
import type { Allowlist } from '../network/allowlist.js';

/**
 * Reads the gates from the `.agents/hooks.json` source, if any (SPEC §4: none means no hooks). An
 * `http` handler is refused unless the environment's `network.allowlist` lets its host through: it
 * leaves the sandbox only through the egress proxy (SPEC §7), so it would otherwise never run.
 */
export function hooksConfigOf(sources: PlacedSource[], allowlist?: Allowlist): HooksConfig {
  const file = sources.find((source) => source.area === 'agents' && source.path === 'hooks.json');
  if (!file) return EMPTY_HOOKS_CONFIG;
  const config = parseHooksConfig(file.content);
  for (const group of config.groups) {
    for (const event of ['pre_tool_execution', 'post_tool_execution'] as const) {
      group[event].forEach((rule) =>
        rule.handlers.forEach((handler, index) => {
          if (handler.type === 'http') {
            const host = new URL(handler.url).hostname;
            if (allowlist?.match(host)) return;
            const field = `${rule.path}.hooks[${index}].url`;
            throw new UserError(
              'unsupported',
              allowlist
                ? `.agents/hooks.json: ${field}: "http" handlers need a network.allowlist that names ${host}, and this environment's allowlist does not; refused rather than silently never run`
                : `.agents/hooks.json: ${field}: "http" handlers need a network.allowlist that names ${host} (SPEC §7), and this environment has no network; refused rather than silently never run`,
              { details: { field } },
            );
          }
        }),
      );
    }
  }
  return config;
}
