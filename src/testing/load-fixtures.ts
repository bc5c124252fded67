import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { readSourcesDir } from '../cli/sources-dir.js';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { describeIssues, knownKeysOf } from '../errors/zod-issues.js';
import { UserError } from '../errors/index.js';
import { fixtureSchema, type Fixture, type FixtureCase } from './fixture-schema.js';

export interface LoadedFixture {
  file: string;
  fixture: Fixture;
}

interface Problem {
  where: string;
  message: string;
}

/**
 * Every problem of one fixture file in one error (a fixture is fixed once, not once per problem):
 * each line `FILE: WHERE: MESSAGE`; `details.field` is the first problem's.
 */
function invalidFixture(file: string, problems: readonly Problem[]): UserError {
  const lines = problems.map((problem) => `${file}: ${problem.where}: ${problem.message}`);
  const message =
    lines.length === 1 ? lines[0]! : `${file}: ${lines.length} problems\n  ${lines.join('\n  ')}`;
  return new UserError('invalid_argument', message, {
    details: {
      field: problems[0]!.where,
      file,
      ...(problems.length > 1 ? { problems: problems.map((p) => `${p.where}: ${p.message}`) } : {}),
    },
  });
}

/** A case whose expectations cannot all hold: a blocked call has no exit code, output or error. */
function impossibilities(index: number, testCase: FixtureCase): Problem[] {
  const problems: Problem[] = [];
  const expect = testCase.expect;
  const where = `cases[${index}] (${testCase.name}).expect`;
  if (expect.blocked === true) {
    for (const key of ['exit_code', 'stdout', 'stderr', 'error'] as const) {
      if (expect[key] !== undefined)
        problems.push({
          where: `${where}.${key}`,
          message: 'impossible: a blocked call does not run, so it has no ' + key,
        });
    }
  }
  if (expect.blocked === false && expect.reason !== undefined) {
    problems.push({
      where: `${where}.reason`,
      message: 'impossible: a call that is not blocked has no deny reason',
    });
  }
  for (const [key, value] of Object.entries(expect)) {
    if (value && typeof value === 'object' && 'regex' in value) {
      try {
        new RegExp(value.regex);
      } catch (error) {
        problems.push({
          where: `${where}.${key}.regex`,
          message: `not a valid regular expression (${(error as Error).message})`,
        });
      }
    }
  }
  const workspace = expect.workspace;
  if (workspace?.exists && workspace.absent) {
    const both = workspace.exists.filter((path) => workspace.absent!.includes(path));
    if (both.length > 0)
      problems.push({
        where: `${where}.workspace`,
        message: `impossible: ${both[0]} must both exist and be absent`,
      });
  }
  return problems;
}

/** The fixture and its problems (all of them); no fixture when it does not even parse. */
function checkFixture(text: string): { fixture?: Fixture; problems: Problem[] } {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const message =
      error instanceof YAMLParseError ? error.message.split('\n')[0]! : (error as Error).message;
    return { problems: [{ where: '(file)', message: `not valid YAML: ${message}` }] };
  }
  const parsed = fixtureSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, knownKeysOf(fixtureSchema)).map(
      (problem) => {
        const caseIndex = /^cases\[(\d+)\]/.exec(problem.path);
        const caseName = caseIndex
          ? (raw as { cases?: { name?: string }[] }).cases?.[Number(caseIndex[1])]?.name
          : undefined;
        return {
          where: caseName ? `${problem.path} (case ${JSON.stringify(caseName)})` : problem.path,
          message: problem.message,
        };
      },
    );
    return { problems };
  }
  const fixture = parsed.data;
  const problems: Problem[] = [];
  const names = new Set<string>();
  fixture.cases.forEach((testCase, index) => {
    if (names.has(testCase.name))
      problems.push({
        where: `cases[${index}].name`,
        message: `duplicate case name ${JSON.stringify(testCase.name)}`,
      });
    names.add(testCase.name);
    problems.push(...impossibilities(index, testCase));
  });
  return { fixture, problems };
}

/** Parses one fixture file (YAML or JSON); its error names the file, and each case and field. */
export function parseFixture(text: string, file: string): Fixture {
  const { fixture, problems } = checkFixture(text);
  if (problems.length > 0 || !fixture) throw invalidFixture(file, problems);
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
  return files.map((path) => {
    const file = relative(process.cwd(), path) || path;
    const { fixture, problems } = checkFixture(readFileSync(path, 'utf8'));
    // The sources folder is read now, so its problems are the fixture's, named with its file.
    if (fixture?.sources?.dir !== undefined) {
      try {
        readSourcesDir(resolve(dirname(path), fixture.sources.dir), 'sources.dir');
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        problems.push({
          where: 'sources.dir',
          message: error.message.replace(/^sources\.dir: /, ''),
        });
      }
    }
    if (problems.length > 0 || !fixture) throw invalidFixture(file, problems);
    return { file, fixture };
  });
}
