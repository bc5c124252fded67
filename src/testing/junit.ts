import type { CaseResult } from './run-fixtures.js';

/**
 * Whether XML 1.0 can hold a code point (its `Char` production): tab, newline, return,
 * U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF. Not U+FFFE, U+FFFF, other control characters
 * or lone surrogates; tool output is untrusted and may hold any of them.
 */
export function isXmlChar(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Text as XML character data or an attribute value: characters XML cannot hold are dropped. */
export function escape(text: string): string {
  // `for…of` walks code points: a valid surrogate pair is one, a lone surrogate stays alone.
  let kept = '';
  for (const character of text) if (isXmlChar(character.codePointAt(0)!)) kept += character;
  return kept
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** JUnit XML (the common Ant/Jenkins dialect): one testsuite per fixture file, one testcase per run. */
export function junitXml(results: CaseResult[]): string {
  const suites = new Map<string, CaseResult[]>();
  for (const result of results)
    suites.set(result.fixture, [...(suites.get(result.fixture) ?? []), result]);
  const total = results.length;
  const failed = results.filter((result) => !result.passed).length;
  const time = results.reduce((sum, result) => sum + result.durationMs, 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="hookbox test" tests="${total}" failures="${failed}" errors="0" time="${seconds(time)}">`,
  ];
  for (const [name, cases] of suites) {
    const suiteFailures = cases.filter((result) => !result.passed).length;
    const suiteTime = cases.reduce((sum, result) => sum + result.durationMs, 0);
    lines.push(
      `  <testsuite name="${escape(name)}" file="${escape(cases[0]!.file)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0" time="${seconds(suiteTime)}">`,
    );
    for (const result of cases) {
      const caseName =
        result.mode === 'containment' ? `${result.name} [gate off: contained]` : result.name;
      const open = `    <testcase classname="${escape(name)}" name="${escape(caseName)}" time="${seconds(result.durationMs)}"`;
      if (result.passed) lines.push(`${open}/>`);
      else {
        lines.push(`${open}>`);
        lines.push(
          `      <failure message="${escape(result.failures[0] ?? 'failed')}">${escape(result.failures.join('\n'))}</failure>`,
        );
        lines.push('    </testcase>');
      }
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}
