// The floor rule of `npm run lint` (README, "Layout"): run dependency-cruiser with the project's own
// configuration on a small tree with arrows up, and on src/ itself.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

interface Config {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden'];
  options: Partial<ICruiseOptions>;
}
/** The project's own configuration (plain JavaScript, so loaded by its URL rather than typed). */
const layers = (await import(pathToFileURL(resolve('.dependency-cruiser.mjs')).href)) as {
  default: Config;
  FLOORS: { name: string; why: string; paths: string[] }[];
  KNOWN_ARROWS_UP: [string, string][];
};
const { default: config, FLOORS, KNOWN_ARROWS_UP } = layers;

async function violationsIn(
  baseDir: string,
  ruleSet: Config,
  options: Partial<ICruiseOptions> = {},
): Promise<{ violations: IViolation[]; ignored: number }> {
  // The fixture tree has no tsconfig.json; src/ passes the project's own in `options`.
  const rest = { ...ruleSet.options };
  delete rest.tsConfig;
  const result = await cruise(['src'], {
    ...rest,
    ...options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: ruleSet.forbidden },
  });
  if (typeof result.output === 'string') throw new Error('expected a cruise result');
  const { violations, ignore } = result.output.summary;
  return { violations: violations.filter((v) => v.rule.severity === 'error'), ignored: ignore };
}

const arrows = (violations: IViolation[]) =>
  violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();

describe('layers', () => {
  const root = mkdtempSync(join(tmpdir(), 'hookbox-layers-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  it('refuses a new arrow up, a file cycle and a folder on no floor; lets known arrows and arrows down pass', async () => {
    write(
      'src/server/app.ts',
      "import { code } from '../errors/errors';\nexport const app = code;\n",
    );
    write('src/errors/errors.ts', 'export const code = 1;\n');
    // New: the ground floor importing the server.
    write('src/record/bad.ts', "import { app } from '../server/app';\nexport const bad = app;\n");
    // Known (listed the way KNOWN_ARROWS_UP lists one), then a new arrow between the same two folders.
    write('src/snapshots/snapshot-rows.ts', 'export const rows = 1;\n');
    write('src/snapshots/snapshots.ts', 'export const snapshots = 1;\n');
    write(
      'src/tenants/tenant-disk.ts',
      "import { rows } from '../snapshots/snapshot-rows';\nimport { snapshots } from '../snapshots/snapshots';\nexport const disk = rows + snapshots;\n",
    );
    // A file cycle within one floor.
    write('src/sandbox/a.ts', "import { b } from './b';\nexport const a = () => b;\n");
    write('src/sandbox/b.ts', "import { a } from './a';\nexport const b = () => a;\n");
    // A folder no floor names.
    write(
      'src/elsewhere/x.ts',
      "import { code } from '../errors/errors';\nexport const x = code;\n",
    );

    // src/ has no known arrow up left, so the fixture lists one of its own the same way.
    const known = {
      type: 'dependency',
      from: 'src/tenants/tenant-disk.ts',
      to: 'src/snapshots/snapshot-rows.ts',
      rule: { severity: 'error', name: 'no-arrow-up-from-services' },
    } as const;
    const withKnown = {
      ...config,
      options: {
        ...config.options,
        knownViolations: [...(config.options.knownViolations ?? []), known],
      },
    };
    const { violations, ignored } = await violationsIn(root, withKnown);
    expect(arrows(violations)).toEqual([
      'every-file-on-a-floor: src/elsewhere/x.ts -> src/errors/errors.ts',
      'no-arrow-up-from-ground: src/record/bad.ts -> src/server/app.ts',
      'no-arrow-up-from-services: src/tenants/tenant-disk.ts -> src/snapshots/snapshots.ts',
      'no-file-cycle: src/sandbox/a.ts -> src/sandbox/b.ts',
    ]);
    expect(ignored).toBe(1);
  }, 30_000);

  it('has no new arrow up in src/, and every known arrow up is still there (else drop it from the list)', async () => {
    const { violations, ignored } = await violationsIn(process.cwd(), config, {
      tsConfig: { fileName: 'tsconfig.json' },
    });
    expect(arrows(violations)).toEqual([]);
    expect(ignored).toBe(KNOWN_ARROWS_UP.length);
  }, 120_000);

  it('names each floor once, bottom first, with a reason', () => {
    const names = FLOORS.map((floor) => floor.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe('ground');
    expect(names.at(-1)).toBe('surface');
    for (const floor of FLOORS) expect(floor.why.length).toBeGreaterThan(10);
  });
});
