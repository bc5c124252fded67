// docs/console.md's metrics table names every label value /metrics emits (the lists the metrics
// are made from), so a new outcome or status cannot go undocumented.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOOK_OUTCOMES } from '../../src/record/types.js';
import { ENDED_STATUSES } from '../../src/server/metrics.js';

const docs = readFileSync(new URL('../../docs/console.md', import.meta.url), 'utf8');
const row = (series: string) => docs.split('\n').find((line) => line.startsWith(`| \`${series}\``));

describe('the metrics table of docs/console.md', () => {
  it('lists every hook outcome of hookbox_hook_runs_total', () => {
    for (const outcome of HOOK_OUTCOMES)
      expect(row('hookbox_hook_runs_total')).toContain(`\`${outcome}\``);
  });

  it('lists every status hookbox_interactions_total counts', () => {
    for (const status of ENDED_STATUSES)
      expect(row('hookbox_interactions_total')).toContain(`\`${status}\``);
  });
});
