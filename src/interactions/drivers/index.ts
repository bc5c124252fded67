/**
 * The driver registry: which model driver runs an interaction, chosen by the request's `agent`.
 *
 * | agent | driver | needs |
 * | --- | --- | --- |
 * | `scripted`, `scripted-MM-YYYY` | the offline driver: runs the calls listed in `input` | — |
 * | `gemini-*`, `antigravity-preview-*`, `models/*` | `gemini` (Gemini REST API, function calling) | `GEMINI_API_KEY` |
 * | `openai:<model>` | `openai` (any OpenAI-compatible chat-completions endpoint) | `HOOKBOX_OPENAI_BASE_URL` |
 *
 * `HOOKBOX_AGENT_ALIASES` maps agent names onto others before this table is read, e.g.
 * `antigravity-preview-05-2026=openai:qwen2.5` runs Gemini requests unchanged on a local model. The
 * alias picks the driver only: the tool vocabulary stays the requested name's.
 */
import { UserError } from '../../errors/index.js';
export { vocabularyForAgent } from '../../tools/vocabulary-for-agent.js';
import type { VocabularyId } from '../../tools/registry.js';
import { vocabularyForAgent } from '../../tools/vocabulary-for-agent.js';
import type { ModelDriver } from '../driver.js';
import { scriptedDriver } from './scripted.js';

/** The process environment a driver reads its settings (keys, URLs, models) from. */
export type DriverEnv = Record<string, string | undefined>;

/** Makes (or returns) the driver for one agent name. */
export type DriverLoader = (agent: string, env: DriverEnv) => Promise<ModelDriver>;

/** A rule of the agent → driver table. */
export interface AgentRoute {
  /** Matches the whole agent name. */
  pattern: RegExp;
  /** The key of the driver in the loaders map. */
  driver: string;
  /** Environment variables the driver cannot run without. */
  requires?: string[];
  /** How the rule reads in docs and errors. */
  description: string;
}

export const DEFAULT_AGENT_ROUTES: readonly AgentRoute[] = [
  {
    pattern: /^scripted(-\d{2}-\d{4})?$/,
    driver: 'scripted',
    description: 'scripted, scripted-MM-YYYY (tools of that vocabulary)',
  },
  {
    pattern: /^(gemini-.+|antigravity-preview-.+|models\/.+)$/,
    driver: 'gemini',
    requires: ['GEMINI_API_KEY'],
    description: 'gemini-*, antigravity-preview-*, models/*',
  },
  {
    pattern: /^openai:.+$/,
    driver: 'openai',
    requires: ['HOOKBOX_OPENAI_BASE_URL'],
    description: 'openai:<model>',
  },
];

/**
 * The drivers built in, by the name the routes use. A route whose driver is missing from the map a
 * registry is given is refused with a 400 that says so.
 */
export const BUILT_IN_DRIVERS: Readonly<Record<string, DriverLoader>> = {
  scripted: async () => scriptedDriver,
  // Loaded on first use, so a server that only runs `scripted` never loads them.
  gemini: async (agent, env) => (await import('./gemini.js')).createGeminiDriver({ agent, env }),
  openai: async (agent, env) => (await import('./openai.js')).createOpenAIDriver({ agent, env }),
};

/** Parses `HOOKBOX_AGENT_ALIASES`: comma-separated `name=agent` pairs. */
export function parseAgentAliases(text: string | undefined): Map<string, string> {
  const aliases = new Map<string, string>();
  if (!text) return aliases;
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const agent = pair.slice(at + 1).trim();
    if (at < 0 || name === '' || agent === '') {
      throw new UserError(
        'invalid_argument',
        `HOOKBOX_AGENT_ALIASES: ${JSON.stringify(pair)} is not "name=agent"`,
        { details: { field: 'HOOKBOX_AGENT_ALIASES' } },
      );
    }
    aliases.set(name, agent);
  }
  return aliases;
}

export interface ResolvedAgent {
  driver: ModelDriver;
  /** The agent name after aliases. */
  agent: string;
  /**
   * The tool vocabulary a new environment for this agent speaks: the one of the name the request
   * gave, never of an alias's target, so an alias cannot change which gates fire
   * (docs/drivers.md, "Aliases").
   */
  vocabulary: VocabularyId;
}

export interface DriverRegistryOptions {
  loaders?: Readonly<Record<string, DriverLoader>>;
  routes?: readonly AgentRoute[];
  /** @default process.env */
  env?: DriverEnv;
}

/** Picks the driver for an agent name (docs/contract.md §9). */
export class DriverRegistry {
  private readonly loaders: Readonly<Record<string, DriverLoader>>;
  private readonly routes: readonly AgentRoute[];
  private readonly env: DriverEnv;
  private readonly aliases: Map<string, string>;

  constructor(options: DriverRegistryOptions = {}) {
    this.loaders = options.loaders ?? BUILT_IN_DRIVERS;
    this.routes = options.routes ?? DEFAULT_AGENT_ROUTES;
    this.env = options.env ?? process.env;
    this.aliases = parseAgentAliases(this.env.HOOKBOX_AGENT_ALIASES);
  }

  /** The agent names this registry knows, as documentation. */
  describe(): { agents: string; driver: string; available: boolean; requires: string[] }[] {
    return this.routes.map((route) => ({
      agents: route.description,
      driver: route.driver,
      available: route.driver in this.loaders,
      requires: route.requires ?? [],
    }));
  }

  /** The driver for `agent`; an unknown or unavailable agent is a 400 naming the `agent` field. */
  async resolve(requested: string): Promise<ResolvedAgent> {
    const agent = this.aliases.get(requested) ?? requested;
    const route = this.routes.find((candidate) => candidate.pattern.test(agent));
    const via = agent === requested ? '' : ` (alias of ${JSON.stringify(requested)})`;
    if (!route) {
      throw new UserError(
        'invalid_argument',
        `agent: unknown agent ${JSON.stringify(agent)}${via}; known: ${this.routes.map((r) => r.description).join('; ')}`,
        { details: { field: 'agent' } },
      );
    }
    const loader = this.loaders[route.driver];
    if (!loader) {
      throw new UserError(
        'unsupported',
        `agent: ${JSON.stringify(agent)}${via} runs on the ${route.driver} driver, which this hookbox does not have yet; use "scripted"`,
        { details: { field: 'agent' } },
      );
    }
    const missing = (route.requires ?? []).filter((name) => !this.env[name]);
    if (missing.length > 0) {
      throw new UserError(
        'unsupported',
        `agent: ${JSON.stringify(agent)}${via} runs on the ${route.driver} driver, which needs ${missing.join(' and ')} set where hookbox runs`,
        { details: { field: 'agent', missing } },
      );
    }
    return {
      driver: await loader(agent, this.env),
      agent,
      vocabulary: vocabularyForAgent(requested),
    };
  }
}
