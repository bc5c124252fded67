import type { CallOutcome } from '../controller/environment.js';
import type { Expectation, TextExpectation } from './fixture-schema.js';
import type { JsonObject } from '../tools/types.js';

/** What the runner learned about a workspace path after the call. */
export interface PathProbe {
  exists: boolean;
  content?: string;
}

/** A result's field when it is text. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function textFailure(
  what: string,
  expected: TextExpectation,
  actual: string | null | undefined,
): string | undefined {
  const shown =
    actual === null || actual === undefined
      ? 'nothing'
      : JSON.stringify(actual.length > 300 ? `${actual.slice(0, 300)}…` : actual);
  if ('exact' in expected) {
    return actual === expected.exact
      ? undefined
      : `${what}: expected exactly ${JSON.stringify(expected.exact)}, got ${shown}`;
  }
  return actual !== null && actual !== undefined && new RegExp(expected.regex).test(actual)
    ? undefined
    : `${what}: expected to match /${expected.regex}/, got ${shown}`;
}

/** Every expectation that does not hold, spelled out; empty when the case passes. */
export function unmetExpectations(
  expect: Expectation,
  outcome: CallOutcome,
  probe: (path: string) => PathProbe | undefined,
): string[] {
  const failures: string[] = [];
  const add = (failure: string | undefined) => failure && failures.push(failure);
  if (expect.blocked !== undefined && outcome.blocked !== expect.blocked) {
    add(
      `blocked: expected ${expect.blocked}, got ${outcome.blocked}${outcome.reason ? ` (reason: ${outcome.reason})` : ''}`,
    );
  }
  if (expect.reason) add(textFailure('reason', expect.reason, outcome.reason));
  // Read as JSON: an expectation names code_execution's fields, which a file tool's result lacks.
  const result: JsonObject = outcome.result ?? {};
  if (expect.exit_code !== undefined && result.exit_code !== expect.exit_code) {
    add(
      `exit_code: expected ${expect.exit_code}, got ${outcome.result ? String(result.exit_code) : 'no result (blocked)'}`,
    );
  }
  if (expect.stdout) add(textFailure('stdout', expect.stdout, textOf(result.stdout)));
  if (expect.stderr) add(textFailure('stderr', expect.stderr, textOf(result.stderr)));
  if (expect.error) add(textFailure('error', expect.error, outcome.error));
  const workspace = expect.workspace;
  for (const path of workspace?.exists ?? [])
    if (!probe(path)?.exists) add(`workspace: ${path} should exist but does not`);
  for (const path of workspace?.absent ?? [])
    if (probe(path)?.exists) add(`workspace: ${path} should be absent but exists`);
  for (const [path, expected] of Object.entries(workspace?.content ?? {})) {
    const found = probe(path);
    add(
      found?.exists
        ? textFailure(`workspace ${path}`, expected, found.content)
        : `workspace: ${path} should exist (content check) but does not`,
    );
  }
  return failures;
}

/** The workspace paths an expectation needs probed. */
export function pathsToProbe(expect: Expectation): string[] {
  const workspace = expect.workspace;
  return [
    ...new Set([
      ...(workspace?.exists ?? []),
      ...(workspace?.absent ?? []),
      ...Object.keys(workspace?.content ?? {}),
    ]),
  ];
}
