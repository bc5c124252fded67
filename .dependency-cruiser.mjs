// The floors of src/ and the rule that no import climbs back up (README, "Layout"), checked by
// dependency-cruiser in `npm run lint`. A file may import its own floor and any floor below it;
// file-level import cycles are refused on every floor.

/**
 * The floors, bottom first. A file belongs to the first floor one of whose patterns it matches, so
 * the ground floor can claim single files inside folders that sit higher (tools/types.ts,
 * sandbox/protocol/).
 */
export const FLOORS = [
  {
    name: 'ground',
    why: 'ids, records, errors, paths, tool-call and result types, the agent protocol: import nothing above',
    paths: [
      '^src/errors/',
      '^src/record/',
      '^src/paths[.]ts$',
      '^src/ids[.]ts$',
      '^src/tools/types[.]ts$',
      '^src/sandbox/protocol/',
    ],
  },
  {
    name: 'language',
    why: 'what hooks and tools are: hooks.json and sources, matchers, tool vocabularies',
    paths: ['^src/config/', '^src/tools/'],
  },
  { name: 'state', why: 'the persistence layer (SQLite, PostgreSQL)', paths: ['^src/state/'] },
  {
    name: 'sandbox',
    why: 'one sandbox, whatever runs it: the backend interfaces, volumes and disks, the agent connection, the image',
    paths: ['^src/sandbox/'],
  },
  {
    name: 'services',
    why: 'what an environment is made with: network, credentials, templates, tenants, agents',
    paths: [
      '^src/network/',
      '^src/credentials/',
      '^src/templates/',
      '^src/tenants/',
      '^src/agents/',
    ],
  },
  {
    name: 'backends',
    why: 'the engines that implement the sandbox interfaces (Docker, Kubernetes) and their deployment',
    paths: ['^src/backends/'],
  },
  {
    name: 'hooks',
    why: "the hooks engine: sandbox gates, controller hooks, dialects, approvals, other agents' hooks imported",
    paths: ['^src/hooks/'],
  },
  {
    name: 'controller',
    why: 'the controller and its environments, the call path, snapshots and forks',
    paths: ['^src/controller/', '^src/snapshots/'],
  },
  {
    name: 'interactions',
    why: 'the interaction loop and the SDK resources over it',
    paths: ['^src/interactions/', '^src/resources/'],
  },
  {
    name: 'surface',
    why: 'what users touch: HTTP server, MCP, CLI, the TypeScript client, fixtures runner, the package entry',
    paths: [
      '^src/server/',
      '^src/mcp/',
      '^src/cli/',
      '^src/client/',
      '^src/testing/',
      '^src/index[.]ts$',
    ],
  },
];

/**
 * Arrows up that exist today and need the folder refactor to remove (issue list kept here, not in
 * a baseline file, so each one carries its reason). Every entry is one file importing one file; a
 * new arrow up, even between the same two folders, fails. Remove an entry when its import goes
 * (a unit test fails on entries that no longer match an import: test/unit/layers.test.ts).
 */
export const KNOWN_ARROWS_UP = [
  // state/ stores the row classes that live beside their features; one persistence layer owns them.
  ['src/state/postgres-state-store.ts', 'src/agents/agent-rows.ts'],
  ['src/state/sqlite-state-adapter.ts', 'src/agents/agent-rows.ts'],
  ['src/state/store.ts', 'src/agents/agent-rows.ts'],
  ['src/state/postgres-state-store.ts', 'src/credentials/postgres-rows.ts'],
  ['src/state/sqlite-state-adapter.ts', 'src/credentials/sqlite-rows.ts'],
  ['src/state/store.ts', 'src/credentials/rows.ts'],
  ['src/state/postgres-state-store.ts', 'src/snapshots/postgres-snapshot-rows.ts'],
  ['src/state/sqlite-state-adapter.ts', 'src/snapshots/snapshot-rows.ts'],
  ['src/state/store.ts', 'src/snapshots/snapshot-rows.ts'],
  // state/ implements interfaces and upgrades declared by interactions/ (approvals, stored interactions).
  ['src/state/approval-row-schema.ts', 'src/interactions/approval-store.ts'],
  ['src/state/postgres-approval-store.ts', 'src/interactions/approval-store.ts'],
  ['src/state/sqlite-approval-store.ts', 'src/interactions/approval-store.ts'],
  ['src/state/store.ts', 'src/interactions/approval-store.ts'],
  ['src/state/shared-interaction-store.ts', 'src/interactions/schema.ts'],
  ['src/state/shared-interaction-store.ts', 'src/interactions/store.ts'],
  ['src/state/shared-interaction-store.ts', 'src/interactions/stored-upgrade.ts'],
  ['src/state/sqlite-interaction-store.ts', 'src/interactions/schema.ts'],
  ['src/state/sqlite-interaction-store.ts', 'src/interactions/store.ts'],
  ['src/state/sqlite-interaction-store.ts', 'src/interactions/stored-upgrade.ts'],
  // Agents are defined by the interaction request they make (a driver, a request schema).
  ['src/agents/agents.ts', 'src/interactions/drivers/index.ts'],
  ['src/agents/agents.ts', 'src/interactions/request.ts'],
  ['src/agents/agents.ts', 'src/interactions/request-schema.ts'],
  // Credentials' environment variables are parsed by the environment's tool-env rules.
  ['src/credentials/environment-credentials.ts', 'src/controller/tool-env.ts'],
  // Tenant quotas read the controller's environments and snapshots.
  ['src/tenants/tenant-disk.ts', 'src/controller/controller.ts'],
  ['src/tenants/tenant-disk.ts', 'src/snapshots/snapshot-rows.ts'],
  // The API service's snapshot methods sit in snapshots/ but work on the service's environments
  // (leases, quotas): they belong on the interactions floor with the rest of the service.
  ['src/snapshots/service-snapshots.ts', 'src/interactions/service-environments.ts'],
];

const named = (patterns) => patterns.join('|');

/** One rule per floor: its files import nothing on a higher floor. */
const floorRules = FLOORS.slice(0, -1).map((floor, index) => ({
  name: `no-arrow-up-from-${floor.name}`,
  comment: `${floor.name}: ${floor.why}. It may import only its own floor and the ones below (README, "Layout").`,
  severity: 'error',
  from: {
    path: named(floor.paths),
    ...(index > 0 && { pathNot: named(FLOORS.slice(0, index).flatMap((f) => f.paths)) }),
  },
  to: {
    path: named(FLOORS.slice(index + 1).flatMap((f) => f.paths)),
    pathNot: named(FLOORS.slice(0, index + 1).flatMap((f) => f.paths)),
  },
}));

const floorIndexOf = (file) =>
  FLOORS.findIndex((floor) => floor.paths.some((p) => new RegExp(p).test(file)));

export default {
  forbidden: [
    ...floorRules,
    {
      name: 'no-file-cycle',
      comment: 'Two files that import each other (however far round) are one concept in two files.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'every-file-on-a-floor',
      comment: 'A new folder under src/ needs a place in FLOORS (.dependency-cruiser.mjs).',
      severity: 'error',
      from: { path: '^src/', pathNot: named(FLOORS.flatMap((f) => f.paths)) },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    knownViolations: KNOWN_ARROWS_UP.map(([from, to]) => ({
      type: 'dependency',
      from,
      to,
      rule: { severity: 'error', name: `no-arrow-up-from-${FLOORS[floorIndexOf(from)].name}` },
    })),
  },
};
