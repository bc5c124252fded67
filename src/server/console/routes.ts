import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UserError } from '../../errors/index.js';
import type { InteractionService } from '../../interactions/service.js';
import { packageRoot } from '../../paths.js';
import type { Observation } from '../../record/observations.js';
import { EVENT_STREAM_HEADERS } from '../event-stream.js';
import { Activity, DEFAULT_ACTIVITY_LIMITS } from './activity.js';
import { registerConsoleResources } from './resources.js';

/**
 * The console's own files (console/ at the package root) and the UI library, straight from
 * node_modules: no build step, nothing fetched at run time (docs/console.md, "How it is built").
 */
const OWN_FILES = [
  'app.js',
  'api.js',
  'format.js',
  'sign-in.js',
  'environments.js',
  'interactions.js',
  'interactions-list.js',
  'health.js',
  'egress.js',
  'approvals.js',
  'resources.js',
  'audit.js',
  'call-filters.js',
  'style.css',
];
const VENDOR_FILES: Record<string, string> = {
  'preact.js': 'preact/dist/preact.module.js',
  'preact-hooks.js': 'preact/hooks/dist/hooks.module.js',
  'htm.js': 'htm/dist/htm.module.js',
};

interface StaticFile {
  body: Buffer;
  type: string;
}

/**
 * A file of an installed package, looked up the way Node looks up packages (node_modules of the
 * package root and its parents); `exports` maps do not apply, since the file is served, not imported.
 */
function nodeModuleFile(path: string): string {
  let dir = packageRoot();
  for (;;) {
    const candidate = join(dir, 'node_modules', path);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`hookbox console: ${path} is not installed (npm ci)`);
    dir = parent;
  }
}

const typeOf = (name: string) =>
  name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';

/** The import map names the vendored modules; its hash goes into the page's CSP. */
const IMPORT_MAP = JSON.stringify({
  imports: {
    preact: '/console/vendor/preact.js',
    'preact/hooks': '/console/vendor/preact-hooks.js',
    htm: '/console/vendor/htm.js',
  },
});

function loadFiles(): { page: string; csp: string; files: Map<string, StaticFile> } {
  const root = join(packageRoot(), 'console');
  const files = new Map<string, StaticFile>();
  for (const name of OWN_FILES)
    files.set(`/console/static/${name}`, {
      body: readFileSync(join(root, name)),
      type: typeOf(name),
    });
  for (const [name, path] of Object.entries(VENDOR_FILES)) {
    files.set(`/console/vendor/${name}`, {
      body: readFileSync(nodeModuleFile(path)),
      type: typeOf(name),
    });
  }
  const page = readFileSync(join(root, 'index.html'), 'utf8').replace('%IMPORT_MAP%', IMPORT_MAP);
  // The hash is of the script's text exactly as the page holds it (whitespace included).
  const inline = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
  const hash = createHash('sha256').update(inline).digest('base64');
  // Nothing inline runs but the import map; hook output can never become markup or script.
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { page, csp, files };
}

/** Paths of the console that need no key: the page and its code hold no data. */
export function isPublicConsolePath(path: string): boolean {
  return (
    path === '/console' ||
    path === '/console/' ||
    path.startsWith('/console/static/') ||
    path.startsWith('/console/vendor/')
  );
}

/** What the console's live stream says: which thing changed; the page fetches it again. */
function eventOf(
  observation: Observation,
):
  | ({ kind: 'call' | 'egress' | 'environment' | 'interaction' } & Record<string, unknown>)
  | undefined {
  switch (observation.kind) {
    case 'hook_run':
      return undefined; // the tool_call that follows carries them
    case 'tool_call':
      return {
        kind: 'call',
        environment_id: observation.environment_id,
        outcome: observation.outcome,
      };
    case 'egress':
      return { kind: 'egress', environment_id: observation.record.environment_id };
    case 'environment_created':
    case 'environment_deleted':
      return { kind: 'environment', environment_id: observation.environment_id };
    case 'interaction':
      return {
        kind: 'interaction',
        interaction_id: observation.interaction_id,
        environment_id: observation.environment_id,
        status: observation.status,
      };
  }
}

/** Heartbeats keep proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

/**
 * The web console at `/console` (docs/console.md): the page, and under `/console/api/` what it
 * reads. The API routes sit behind the app's key check like every other route; the page itself
 * asks for a key and keeps it in the tab's sessionStorage.
 */
export function registerConsole(app: FastifyInstance, service: InteractionService): Activity {
  const { page, csp, files } = loadFiles();
  const activity = new Activity(service.controller.observers);
  // Interactions kept in the state file (and their calls) are listed after a restart, as
  // environments are (docs/console.md, "What it remembers"); the lists wait for them once.
  const seeded = service
    .recentStoredInteractions(DEFAULT_ACTIVITY_LIMITS.interactions)
    .then((stored) => {
      const live = new Set(service.controller.listEnvironments().map((env) => env.id));
      activity.seed(stored, (id) => live.has(id));
    })
    .catch((error: unknown) => {
      app.log.warn(
        { error: (error as Error).message },
        'console: reading stored interactions failed',
      );
    });
  const streams = new Set<() => void>();
  // Before the server stops accepting: open streams would hold its close up forever.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.addHook('onClose', async () => activity.close());

  const sendPage = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .send(page);
  app.get('/console', sendPage);
  app.get('/console/', sendPage);
  for (const [path, file] of files) {
    app.get(path, async (_request, reply) =>
      reply
        .header('content-type', file.type)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-cache')
        .send(file.body),
    );
  }

  const environmentRow = async (id: string) => {
    const info = await service.environmentInfo(id);
    const done = activity.environmentActivity(id);
    // Re-attached before this server's console was listening: the controller knows it was.
    const reattached = service.controller.getEnvironment(id).reattached;
    return { ...info, ...done, source: done.source ?? (reattached ? 'reattached' : null) };
  };

  app.get('/console/api/overview', async () => {
    await seeded;
    const listed = await service.listEnvironments();
    const rows = await Promise.all(
      listed.map(
        ({ environment_id }) => environmentRow(environment_id).catch(() => undefined), // deleted between the two reads
      ),
    );
    const environments = rows.filter((row) => row !== undefined);
    return {
      environments,
      interactions: activity.recentInteractions().slice(0, 50),
      in_flight: service.inFlight,
      pool: service.controller.pool?.size ?? null,
    };
  });

  app.get<{ Params: { id: string } }>('/console/api/environments/:id', async (request) => {
    await seeded;
    return {
      environment: await environmentRow(request.params.id),
      calls: activity.callsOf(request.params.id),
      interactions: activity.recentInteractions(request.params.id),
    };
  });

  app.get('/console/api/interactions', async () => {
    await seeded;
    return { interactions: activity.recentInteractions() };
  });

  registerConsoleResources(app, service);

  app.get('/console/api/gate-health', async () => activity.gateHealth());

  app.get('/console/api/egress', async () => ({ egress: activity.recentEgress() }));

  app.get('/console/api/events', async (request, reply) => {
    if (request.headers.accept && !request.headers.accept.includes('text/event-stream')) {
      throw new UserError('invalid_argument', 'accept: this stream is text/event-stream', {
        details: { field: 'accept' },
      });
    }
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, EVENT_STREAM_HEADERS);
    const write = (text: string) => {
      if (!raw.destroyed && !raw.writableEnded) raw.write(text);
    };
    write(': hookbox console\n\n');
    const stop = service.controller.observers.add((observation) => {
      const event = eventOf(observation);
      if (event) write(`event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
    const end = () => {
      streams.delete(end);
      clearInterval(heartbeat);
      stop();
      if (!raw.writableEnded) raw.end();
    };
    streams.add(end);
    raw.on('close', end);
    raw.on('error', end);
  });

  return activity;
}
