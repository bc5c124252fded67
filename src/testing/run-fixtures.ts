import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileSource, readSourcesDir } from '../cli/sources-dir.js';
import { placeSources, type InlineSource } from '../config/sources.js';
import type { CallOutcome } from '../controller/environment.js';
import type { EnvironmentOptions } from '../controller/environment-options.js';
import { toHookboxError, UserError } from '../errors/index.js';
import { packageRoot } from '../paths.js';
import { CaseEnvironment, outsideWorkspace, type FixtureEnvironment } from './case-environment.js';
import { pathsToProbe, unmetExpectations, type PathProbe } from './expectations.js';
import type { FixtureCase } from './fixture-schema.js';
import type { LoadedFixture } from './load-fixtures.js';
import { isExecResult } from '../tools/results.js';

export interface CaseResult {
  fixture: string;
  file: string;
  name: string;
  /** `gated`: the case against its gates; `containment`: a destructive case with the gate off. */
  mode: 'gated' | 'containment';
  passed: boolean;
  failures: string[];
  durationMs: number;
  blocked?: boolean;
}

export interface RunOptions {
  /** Environments at a time. @default 4 */
  jobs?: number;
  /** Also run destructive cases with the gate off and check containment. @default true */
  containment?: boolean;
  /** Where shipped gates live. @default hooks-scripts/ of this checkout */
  gatesDir?: string;
  onResult?: (result: CaseResult, done: number, total: number) => void;
  /**
   * Keep each case's audit log. A case's outcome is in the results (and JUnit), so its log is
   * removed with its environment: a fixture run leaves no logs behind (docs/gates.md). Kept, each
   * case runs in an environment of its own, so that each log is one case's. @default false
   */
  keepAuditLogs?: boolean;
}

/**
 * What a fixture run uses of the controller: it makes environments (`Controller.createEnvironment`).
 * The real `Controller` meets it (`hookbox test` passes one), and so does the unit tests' fake
 * (docs/testing.md, "Fakes the compiler checks").
 */
export interface FixtureController {
  createEnvironment(options: EnvironmentOptions): Promise<FixtureEnvironment>;
}

const DEFAULT_TOOL_TIMEOUT_MS = 20_000;
const CONTAINMENT_TIMEOUT_MS = 10_000;
/**
 * Cases one environment runs before a new one is made: enough to spare most containers, few enough
 * that `jobs` environments share a fixture's cases.
 */
const CASES_PER_ENVIRONMENT = 16;

function gateSources(gatesDir: string, gate: string): InlineSource[] {
  const dir = join(gatesDir, gate);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UserError('invalid_argument', `gate ${JSON.stringify(gate)}: no folder ${dir}`, {
      details: { field: 'gate' },
    });
  }
  const sources: InlineSource[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      if (name === '__pycache__' || name === 'tests') continue;
      const full = join(folder, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const path = relative(dir, full).split(sep).join('/');
        sources.push(fileSource(full, `.agents/hooks-scripts/${gate}/${path}`, 'gate'));
      }
    }
  };
  walk(dir);
  const hooks = join(dir, 'hooks.json');
  if (existsSync(hooks)) sources.push(fileSource(hooks, '.agents/hooks.json', 'gate'));
  return sources;
}

/** The sources of a fixture's environment; without the gates when `gated` is false. */
export function fixtureSources(
  loaded: LoadedFixture,
  gatesDir: string,
  gated: boolean,
): InlineSource[] {
  const { fixture, file } = loaded;
  const sources: InlineSource[] = [];
  if (fixture.gate) sources.push(...gateSources(gatesDir, fixture.gate));
  if (fixture.sources?.dir)
    sources.push(...readSourcesDir(resolve(dirname(file), fixture.sources.dir), 'sources.dir'));
  for (const source of fixture.sources?.inline ?? [])
    sources.push({
      type: 'inline',
      target: source.target,
      content: source.content,
      ...(source.encoding ? { encoding: source.encoding } : {}),
    });
  for (const [path, content] of Object.entries(fixture.workspace_files ?? {}))
    sources.push({ type: 'inline', target: `workspace/${path}`, content });
  return gated
    ? sources
    : sources.filter((source) => source.target.replace(/^\//, '') !== '.agents/hooks.json');
}

async function probePaths(
  environment: FixtureEnvironment,
  paths: string[],
): Promise<Map<string, PathProbe>> {
  const found = new Map<string, PathProbe>();
  for (const path of paths) {
    const answer = await environment.sandbox.request(
      'file',
      { tool: 'read_file', args: { path }, max_read_bytes: 1 << 20 },
      30_000,
    );
    if ('content' in answer) found.set(path, { exists: true, content: answer.content });
    else
      found.set(path, {
        exists: !/No such file or directory/.test('error' in answer ? answer.error : ''),
      });
  }
  return found;
}

/** An environment for one run of a case: with its gates, or (containment) without them. */
function fixtureEnvironment(
  controller: FixtureController,
  loaded: LoadedFixture,
  gatesDir: string,
  mode: CaseResult['mode'],
): Promise<FixtureEnvironment> {
  const timeoutMs =
    loaded.fixture.tool_timeout_ms ??
    (mode === 'gated' ? DEFAULT_TOOL_TIMEOUT_MS : CONTAINMENT_TIMEOUT_MS);
  return controller.createEnvironment({
    sources: fixtureSources(loaded, gatesDir, mode === 'gated'),
    vocabulary: loaded.fixture.vocabulary ?? '2026-05',
    ...(loaded.fixture.template !== undefined ? { template: loaded.fixture.template } : {}),
    toolTimeoutMs: mode === 'gated' ? timeoutMs : Math.min(timeoutMs, CONTAINMENT_TIMEOUT_MS),
  });
}

type Base = Omit<CaseResult, 'durationMs' | 'passed' | 'failures' | 'blocked'>;

/** One gated case in `lane`'s environment; a call that ran leaves it to be restored. */
async function runGated(
  lane: CaseEnvironment,
  testCase: FixtureCase,
  base: Base,
): Promise<Omit<CaseResult, 'durationMs'>> {
  const environment = await lane.ready();
  let outcome: CallOutcome;
  try {
    outcome = await environment.call(testCase.call);
  } catch (error) {
    await lane.discard();
    throw error;
  }
  if (!outcome.blocked) lane.ran();
  const probes = await probePaths(environment, pathsToProbe(testCase.expect));
  const failures = unmetExpectations(testCase.expect, outcome, (path) => probes.get(path));
  return { ...base, passed: failures.length === 0, failures, blocked: outcome.blocked };
}

/**
 * One destructive case with the gate off, in `lane`'s gate-less environment: the call must not
 * break the environment, which must still run code afterwards; with `checkOutside`, nothing outside
 * /workspace may differ from when the environment was new (else the lane checks that at its end).
 */
async function runContained(
  lane: CaseEnvironment,
  testCase: FixtureCase,
  base: Base,
  checkOutside: boolean,
): Promise<Omit<CaseResult, 'durationMs'>> {
  const environment = await lane.ready();
  const failures: string[] = [];
  lane.ran();
  try {
    await environment.call(testCase.call);
  } catch (error) {
    failures.push(
      `with the gate off, the call broke the environment: ${toHookboxError(error).message}`,
    );
  }
  if (failures.length === 0) {
    const alive = await environment
      .call({ name: 'code_execution', args: { code: 'echo alive' } })
      .catch((error: unknown) => toHookboxError(error));
    if (
      alive instanceof Error ||
      !isExecResult(alive.result) ||
      alive.result.stdout !== 'alive\n'
    ) {
      failures.push(
        `with the gate off, the environment stopped working afterwards${alive instanceof Error ? `: ${alive.message}` : ''}`,
      );
    } else if (checkOutside) {
      const after = await outsideWorkspace(environment).catch((error: unknown) =>
        toHookboxError(error),
      );
      if (after instanceof Error)
        failures.push(
          `with the gate off, the environment stopped working afterwards: ${after.message}`,
        );
      else if (after !== lane.outsideWhenNew)
        failures.push(
          'with the gate off, something outside /workspace changed (file tree or /.agents fingerprint differs)',
        );
    }
  }
  // An environment the case got out of, or broke, is never used again.
  if (failures.length > 0) await lane.discard();
  return { ...base, passed: failures.length === 0, failures };
}

interface Task {
  index: number;
  loaded: LoadedFixture;
  testCase: FixtureCase;
  mode: CaseResult['mode'];
}

/**
 * Runs every case (and, for destructive ones, the containment check), `jobs` environments at a
 * time. A fixture's gated cases share environments, and so do its containment runs, at most
 * {@link CASES_PER_ENVIRONMENT} each, restored between runs (src/testing/case-environment.ts).
 */
export async function runFixtures(
  controller: FixtureController,
  fixtures: LoadedFixture[],
  options: RunOptions = {},
): Promise<CaseResult[]> {
  const gatesDir = options.gatesDir ?? join(packageRoot(), 'hooks-scripts');
  const keep = options.keepAuditLogs ?? false;
  // A kept audit log is one case's: each case then has an environment of its own.
  const perEnvironment = keep ? 1 : CASES_PER_ENVIRONMENT;
  const tasks: Task[] = [];
  const lanes: Task[][] = [];
  for (const loaded of fixtures) {
    fixtureSources(loaded, gatesDir, true);
    const gated: Task[] = [];
    const contained: Task[] = [];
    const task = (testCase: FixtureCase, mode: CaseResult['mode']): Task => {
      const made = { index: tasks.length, loaded, testCase, mode };
      tasks.push(made);
      return made;
    };
    for (const testCase of loaded.fixture.cases) {
      gated.push(task(testCase, 'gated'));
      if (testCase.destructive && (options.containment ?? true))
        contained.push(task(testCase, 'containment'));
    }
    for (const lane of [gated, contained])
      for (let at = 0; at < lane.length; at += perEnvironment)
        lanes.push(lane.slice(at, at + perEnvironment));
  }
  // Containment runs take longest (their calls run, and destructively): first, so that the last
  // lanes to finish are short ones.
  lanes.sort((a, b) => Number(b[0]!.mode === 'containment') - Number(a[0]!.mode === 'containment'));
  const results = new Array<CaseResult>(tasks.length);
  let nextLane = 0;
  let done = 0;
  const report = (task: Task, result: Omit<CaseResult, 'durationMs'>, durationMs: number) => {
    results[task.index] = { ...result, durationMs: Math.round(durationMs) };
    options.onResult?.(results[task.index]!, ++done, tasks.length);
  };
  const caseEnvironment = (task: Task) =>
    new CaseEnvironment(
      () => fixtureEnvironment(controller, task.loaded, gatesDir, task.mode),
      placeSources(fixtureSources(task.loaded, gatesDir, false)).filter(
        (source) => source.area === 'workspace',
      ),
      keep,
      task.mode === 'containment',
    );
  const worker = async () => {
    while (nextLane < lanes.length) {
      const lane = lanes[nextLane++]!;
      if (lane[0]!.mode === 'gated') await gatedLane(lane, caseEnvironment(lane[0]!), report);
      else
        for (const [task, result, ms] of await containmentLane(lane, caseEnvironment))
          report(task, result, ms);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs ?? 4) }, worker));
  return results;
}

function baseOf(task: Task): Base {
  return {
    fixture: task.loaded.fixture.name,
    file: task.loaded.file,
    name: task.testCase.name,
    mode: task.mode,
  };
}

/** A case's result, or the runtime failure that stopped it (a user error stops the whole run). */
async function settle(
  task: Task,
  run: () => Promise<Omit<CaseResult, 'durationMs'>>,
): Promise<Omit<CaseResult, 'durationMs'>> {
  try {
    return await run();
  } catch (error) {
    const failure = toHookboxError(error);
    if (failure.kind === 'user') throw failure;
    return { ...baseOf(task), passed: false, failures: [`runtime failure: ${failure.message}`] };
  }
}

/** A fixture's gated cases, one after another in one environment restored between them. */
async function gatedLane(
  lane: Task[],
  environment: CaseEnvironment,
  report: (task: Task, result: Omit<CaseResult, 'durationMs'>, durationMs: number) => void,
): Promise<void> {
  try {
    for (const task of lane) {
      const started = performance.now();
      const result = await settle(task, async () => {
        const result = await runGated(environment, task.testCase, baseOf(task));
        // After the lane's last case its environment goes, as a case's own did (a failure to
        // delete it is that case's).
        if (task === lane.at(-1)) await environment.discard(false);
        return result;
      });
      if (!result.passed) await environment.discard();
      report(task, result, performance.now() - started);
    }
  } finally {
    await environment.discard();
  }
}

/**
 * A fixture's containment runs in one environment, restored between them, and what lies outside
 * /workspace compared once at the end with what it was when new. If any run failed or anything
 * outside /workspace changed, every run of the lane is done again alone, in an environment of its
 * own checked before and after, so that each failure is its own case's.
 */
async function containmentLane(
  lane: Task[],
  caseEnvironment: (task: Task) => CaseEnvironment,
): Promise<[Task, Omit<CaseResult, 'durationMs'>, number][]> {
  const batch = caseEnvironment(lane[0]!);
  const ran: [Task, Omit<CaseResult, 'durationMs'>, number][] = [];
  // A lane of one case is checked before and after at once (below).
  if (lane.length > 1)
    try {
      for (const task of lane) {
        const started = performance.now();
        const result = await settle(task, () =>
          runContained(batch, task.testCase, baseOf(task), false),
        );
        ran.push([task, result, performance.now() - started]);
        if (!result.passed) break;
      }
      if (ran.length === lane.length && ran.every(([, result]) => result.passed)) {
        const started = performance.now();
        const after = await outsideWorkspace(await batch.current());
        ran.at(-1)![2] += performance.now() - started;
        if (after === batch.outsideWhenNew) return ran;
      }
    } catch (error) {
      if (toHookboxError(error).kind === 'user') throw error;
    } finally {
      await batch.discard();
    }
  const alone: [Task, Omit<CaseResult, 'durationMs'>, number][] = [];
  for (const task of lane) {
    const started = performance.now();
    const environment = caseEnvironment(task);
    try {
      alone.push([
        task,
        await settle(task, () => runContained(environment, task.testCase, baseOf(task), true)),
        performance.now() - started,
      ]);
    } finally {
      await environment.discard();
    }
  }
  return alone;
}
