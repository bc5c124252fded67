// What a new environment copied from another needs besides its files: its gates and settings.
import { z } from 'zod';
import type { SandboxOptions } from '../sandbox/sandbox-options.js';
import type { ToolEnvValue } from '../controller/tool-env.js';
import { VOCABULARIES, type VocabularyId } from '../tools/registry.js';
import type { ToolRunSettings } from '../tools/tool-definition.js';

/**
 * How an environment was made, kept so a snapshot or fork of it is made the same way: the gates in
 * force (hooks.json; the scripts are copied with the files), the template, vocabulary, settings and
 * sandbox options. Its network is not in it: allowlist transforms hold secrets, kept in memory only.
 */
export interface EnvironmentRecipe {
  vocabulary: VocabularyId;
  template: string;
  toolTimeoutMs: number;
  outputCapBytes: number;
  backgroundProcesses: boolean;
  /** As given: values, or `{credential}` references (never a credential's value). */
  env?: Record<string, ToolEnvValue>;
  sandbox: SandboxOptions | null;
  /** The hooks.json in force (null: no hooks). */
  hooksJson: string | null;
}

/** The recipe of an environment made, or re-attached, with these settings. */
export function recipeOf(made: {
  vocabulary: VocabularyId;
  template: string;
  settings: Omit<ToolRunSettings, 'env'>;
  /** As given (credential references, not their tokens), when known. */
  env: Record<string, ToolEnvValue> | undefined;
  sandbox: SandboxOptions | null;
  hooksJson: string | null;
}): EnvironmentRecipe {
  return {
    vocabulary: made.vocabulary,
    template: made.template,
    toolTimeoutMs: made.settings.timeoutMs,
    outputCapBytes: made.settings.outputCapBytes,
    backgroundProcesses: made.settings.backgroundProcesses,
    ...(made.env !== undefined ? { env: made.env } : {}),
    sandbox: made.sandbox,
    hooksJson: made.hooksJson,
  };
}

/** Saved recipes are read back through this (saved state is a trust boundary). */
export const recipeSchema = z.object({
  vocabulary: z.enum(Object.keys(VOCABULARIES) as [VocabularyId, ...VocabularyId[]]),
  template: z.string(),
  toolTimeoutMs: z.number().int().positive(),
  outputCapBytes: z.number().int().positive(),
  backgroundProcesses: z.boolean(),
  env: z
    .record(z.string(), z.union([z.string(), z.strictObject({ credential: z.string() })]))
    .optional(),
  // Checked again, as any environment's, when an environment is made from it.
  sandbox: z.record(z.string(), z.unknown()).nullable(),
  hooksJson: z.string().nullable(),
});
