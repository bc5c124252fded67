import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { describeIssues, knownKeysOf } from '../config/zod-issues.js';
import { UserError } from '../errors/index.js';
import { fixtureSchema, type Fixture, type FixtureCase } from './fixture-schema.js';

export interface LoadedFixture {
  file: string;
  fixture: Fixture;
}

function invalid(file: string, where: string, message: string): never {
  throw new UserError('invalid_argument', `${file}: ${where}: ${message}`, {
    details: { field: where, file },
  });
}

/** A case whose expectations cannot all hold: a blocked call has no exit code, output or error. */
function checkPossible(file: string, index: number, testCase: FixtureCase): void {
  const expect = testCase.expect;
  const where = `cases[${index}] (${testCase.name}).expect`;
  if (expect.blocked === true) {
    for (const key of ['exit_code', 'stdout', 'stderr', 'error'] as const) {
      if (expect[key] !== undefined)
        invalid(
          file,
          `${where}.${key}`,
          'impossible: a blocked call does not run, so it has no ' + key,
        );
    }
  }
  if (expect.blocked === false && expect.reason !== undefined) {
    invalid(file, `${where}.reason`, 'impossible: a call that is not blocked has no deny reason');
  }
  for (const [key, value] of Object.entries(expect)) {
    if (value && typeof value === 'object' && 'regex' in value) {
      try {
        new RegExp(value.regex as string);
      } catch (error) {
        invalid(
          file,
          `${where}.${key}.regex`,
          `not a valid regular expression (${(error as Error).message})`,
        );
      }
    }
  }
  const workspace = expect.workspace;
  if (workspace?.exists && workspace.absent) {
    const both = workspace.exists.filter((path) => workspace.absent!.includes(path));
    if (both.length > 0)
      invalid(file, `${where}.workspace`, `impossible: ${both[0]} must both exist and be absent`);
  }
}

/** Parses one fixture file (YAML or JSON); errors name the file, the case and the field. */
export function parseFixture(text: string, file: string): Fixture {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const message =
      error instanceof YAMLParseError ? error.message.split('\n')[0]! : (error as Error).message;
    invalid(file, '(file)', `not valid YAML: ${message}`);
  }
  const parsed = fixtureSchema.safeParse(raw);
  if (!parsed.success) {
    const problem = describeIssues(parsed.error.issues, knownKeysOf(fixtureSchema))[0]!;
    const caseIndex = /^cases\[(\d+)\]/.exec(problem.path);
    const caseName = caseIndex
      ? (raw as { cases?: { name?: string }[] }).cases?.[Number(caseIndex[1])]?.name
      : undefined;
    invalid(
      file,
      caseName ? `${problem.path} (case ${JSON.stringify(caseName)})` : problem.path,
      problem.message,
    );
  }
  const fixture = parsed.data;
  const names = new Set<string>();
  fixture.cases.forEach((testCase, index) => {
    if (names.has(testCase.name))
      invalid(file, `cases[${index}].name`, `duplicate case name ${JSON.stringify(testCase.name)}`);
    names.add(testCase.name);
    checkPossible(file, index, testCase);
  });
  return fixture;
}

function collect(path: string, into: string[]): void {
  if (!existsSync(path))
    throw new UserError('invalid_argument', `${path} does not exist`, {
      details: { field: 'FIXTURES' },
    });
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) collect(join(path, name), into);
  } else if (/\.(ya?ml|json)$/.test(path)) {
    into.push(path);
  }
}

/** Loads every fixture file named, or found under the folders named. */
export function loadFixtures(paths: string[]): LoadedFixture[] {
  const files: string[] = [];
  for (const path of paths) collect(path, files);
  if (files.length === 0)
    throw new UserError(
      'invalid_argument',
      `no fixture files (*.yaml, *.yml, *.json) in ${paths.join(', ')}`,
      { details: { field: 'FIXTURES' } },
    );
  return files.map((file) => ({
    file: relative(process.cwd(), file) || file,
    fixture: parseFixture(readFileSync(file, 'utf8'), file),
  }));
}
