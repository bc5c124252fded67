import { DEFAULT_VOCABULARY, VOCABULARY_IDS, type VocabularyId } from './registry.js';

/**
 * The vocabulary of a Gemini agent name: `…-05-2026` (e.g. `antigravity-preview-05-2026`) → `2026-05`,
 * `…-09-2026` → `2026-09`; any other name → the default (`2026-09`, the current agent's). A vocabulary
 * `YYYY-MM` is picked by an agent name that ends in `-MM-YYYY`, so a new vocabulary needs no change here.
 */
export function vocabularyForAgent(agent: string | undefined): VocabularyId {
  if (agent !== undefined)
    for (const id of VOCABULARY_IDS) {
      const [year, month] = id.split('-');
      if (agent.endsWith(`-${month}-${year}`)) return id;
    }
  return DEFAULT_VOCABULARY;
}
