import { writeFileSync } from 'node:fs';
import { Controller } from '../../controller/controller.js';
import { UserError } from '../../errors/index.js';
import { junitXml } from '../../testing/junit.js';
import { loadFixtures } from '../../testing/load-fixtures.js';
import { runFixtures, type CaseResult } from '../../testing/run-fixtures.js';
import { resolveToolCall } from '../../tools/registry.js';
import { runtimeOption } from '../runtime-option.js';
import type { CliIo } from '../io.js';
import { buildProgressFor, createProgress } from '../progress.js';

export interface TestCommandOptions {
  jobs?: string;
  junit?: string;
  containment?: boolean;
  gatesDir?: string;
  json?: boolean;
  /** `--keep-audit-logs`: keep each case's audit log (by default removed with its environment). */
  keepAuditLogs?: boolean;
  /** `--runtime`: the sandboxes' OCI runtime (runsc: gVisor). */
  runtime?: string;
}

function parseJobs(value: string | undefined): number {
  if (value === undefined) return 4;
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 32) {
    throw new UserError('invalid_argument', '--jobs: must be a whole number from 1 to 32', {
      details: { field: '--jobs' },
    });
  }
  return jobs;
}

function table(results: CaseResult[]): string {
  const rows = results.map((result) => [
    result.passed ? 'pass' : 'FAIL',
    result.fixture,
    result.mode === 'containment' ? `${result.name} [gate off]` : result.name,
    result.mode === 'gated' ? (result.blocked ? 'blocked' : 'allowed') : 'gate off',
    `${result.durationMs} ms`,
  ]);
  const header = ['result', 'fixture', 'case', 'call', 'time'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return (
    [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n') +
    '\n'
  );
}

/**
 * `hookbox test FIXTURES…`: runs fixture cases against real containers, `--jobs` environments at a
 * time; prints a table and every failing expectation; `--junit FILE` writes JUnit XML. Exit 1 if a
 * case fails, 2 for an invalid fixture (the error names the file, the case and the field).
 */
export async function testCommand(
  paths: string[],
  options: TestCommandOptions,
  io: CliIo,
): Promise<number> {
  const runtime = runtimeOption(options.runtime);
  const jobs = parseJobs(options.jobs);
  const fixtures = loadFixtures(paths);
  for (const { file, fixture } of fixtures) {
    fixture.cases.forEach((testCase, index) => {
      try {
        resolveToolCall(testCase.call, fixture.vocabulary ?? '2026-05');
      } catch (error) {
        throw new UserError(
          'invalid_argument',
          `${file}: cases[${index}] (${testCase.name}).call: ${(error as Error).message}`,
          {
            details: { field: `cases[${index}].call`, file },
          },
        );
      }
    });
  }
  // In a terminal: cases done / total and failures so far; nothing with --json or in CI.
  const progress = createProgress(io, options);
  let controller: Controller;
  try {
    controller = await Controller.start({
      onProgress: buildProgressFor(io, progress),
      auditRetention: {},
      ...runtime,
    });
  } catch (error) {
    progress.done();
    throw error;
  }
  // A template no case can run on is an invalid fixture: named before any case runs.
  try {
    for (const { file, fixture } of fixtures)
      if (fixture.template !== undefined)
        await controller.templates
          .resolve(fixture.template, `${file}: template`)
          .catch((error: unknown) => {
            throw error instanceof UserError
              ? new UserError(error.code, error.message, { details: { ...error.details, file } })
              : error;
          });
  } catch (error) {
    progress.done();
    await controller.close();
    throw error;
  }
  const started = performance.now();
  let results: CaseResult[];
  let failures = 0;
  progress.stage(`hookbox test: starting ${jobs} environment(s)`);
  try {
    results = await runFixtures(controller, fixtures, {
      jobs,
      containment: options.containment ?? true,
      gatesDir: options.gatesDir,
      keepAuditLogs: options.keepAuditLogs ?? false,
      onResult: (result, done, total) => {
        if (!result.passed) {
          failures++;
          progress.note(
            `FAIL ${result.fixture} › ${result.name}${result.mode === 'containment' ? ' [gate off]' : ''}`,
          );
        }
        progress.stage(
          `[${done}/${total}] ${failures} failed · ${result.passed ? 'pass' : 'FAIL'} ${result.fixture} › ${result.name}${result.mode === 'containment' ? ' [gate off]' : ''}`,
        );
      },
    });
  } finally {
    progress.done();
    await controller.close();
  }
  const failed = results.filter((result) => !result.passed);
  if (options.json) io.stdout(JSON.stringify(results, null, 2) + '\n');
  else {
    io.stdout(table(results));
    for (const result of failed) {
      io.stdout(
        `\nFAIL ${result.file} › ${result.name}${result.mode === 'containment' ? ' [gate off]' : ''}\n`,
      );
      for (const failure of result.failures) io.stdout(`  ✖ ${failure}\n`);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    io.stdout(
      `\n${results.length - failed.length} passed, ${failed.length} failed (${results.length} runs of ${fixtures.reduce((n, f) => n + f.fixture.cases.length, 0)} cases in ${fixtures.length} fixture file${fixtures.length === 1 ? '' : 's'}, ${seconds} s, ${jobs} jobs)\n`,
    );
  }
  if (options.junit) writeFileSync(options.junit, junitXml(results));
  return failed.length === 0 ? 0 : 1;
}
