// The import report's text reads as English for every format ("an antigravity-cli file").
import { describe, expect, it } from 'vitest';
import { importReportText, type ImportReport } from '../../../src/hooks/import/import-hooks.js';

const report = (format: ImportReport['format']): ImportReport => ({
  format,
  dialect: 'claude-code',
  hooksJson: '/tmp/x/.agents/hooks.json',
  groups: ['g'],
  handlers: 1,
  copied: [],
  notCarried: [],
});

describe('importReportText', () => {
  it('uses "an" before a vowel and "a" otherwise', () => {
    expect(importReportText(report('antigravity-cli'))).toContain('from an antigravity-cli file');
    expect(importReportText(report('claude-code-settings'))).toContain(
      'from a claude-code-settings file',
    );
  });
});
