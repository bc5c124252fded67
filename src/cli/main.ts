import { Command, CommanderError } from 'commander';
import { packageVersion } from '../paths.js';
import { exitCodeOf, toHookboxError } from '../errors/index.js';
import { callCommand } from './commands/call.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { gcCommand } from './commands/gc.js';
import { hooksImportCommand } from './commands/hooks-import.js';
import { imageBuildCommand } from './commands/image.js';
import { k8sManifestsCommand } from './commands/k8s.js';
import { mcpCommand } from './commands/mcp.js';
import { runCommand } from './commands/run.js';
import { controllerImageCommand, serveCommand } from './commands/serve.js';
import {
  templateBuildCommand,
  templateListCommand,
  templateRemoveCommand,
} from './commands/template.js';
import { testCommand } from './commands/test.js';
import { validateCommand } from './commands/validate.js';
import { processIo, type CliIo } from './io.js';
import { RUNTIME_OPTION_HELP } from './runtime-option.js';

function program(io: CliIo, setCode: (code: number) => void): Command {
  const root = new Command('hookbox')
    .description('Sandboxed tool calls for AI agents, gated by hooks that tool code cannot touch.')
    .version(packageVersion(), '-V, --version', 'print the version of hookbox')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  const run = (work: () => Promise<number>) => async () => setCode(await work());

  root
    .command('call')
    .description(
      'make an environment from DIR, run tool call(s) through its gates, print the outcomes, remove it',
    )
    .requiredOption(
      '--sources <dir>',
      'folder whose files become the sources (path relative to DIR = target)',
    )
    .option('--tool <name>', 'tool to call, e.g. code_execution')
    .option('--args <json>', 'the tool arguments as a JSON object')
    .option('--calls <file>', 'a JSON file with an array of {"name", "args"} calls')
    .option(
      '--vocabulary <id>',
      'tool vocabulary: 2026-05 or 2026-09 (default 2026-09, or 2026-05 when a call names a 2026-05-only tool)',
    )
    .option('--tool-timeout-ms <ms>', 'timeout of each tool call, in milliseconds (default 60000)')
    .option('--template <name>', 'the sandbox template (default, full, or one you built)')
    .option('--json', 'print the outcome(s) as JSON')
    .option('--runtime <name>', RUNTIME_OPTION_HELP)
    .action(async (options) => setCode(await callCommand(options, io)));

  root
    .command('mcp')
    .description(
      'an MCP server on stdio: the tools of one environment made from DIR, every call through its gates',
    )
    .requiredOption(
      '--sources <dir>',
      'folder whose files become the sources (path relative to DIR = target)',
    )
    .option('--template <name>', 'the sandbox template (default, full, or one you built)')
    .option('--vocabulary <id>', 'tool vocabulary: 2026-05 or 2026-09 (default 2026-09)')
    .option('--tool-timeout-ms <ms>', 'timeout of each tool call, in milliseconds (default 60000)')
    .option('--runtime <name>', RUNTIME_OPTION_HELP)
    .action(async (options) => setCode(await mcpCommand(options, io)));

  root
    .command('test')
    .description(
      'run fixture cases against real containers: gates block what they must, let through what they should',
    )
    .argument('<fixtures...>', 'fixture files (YAML or JSON) or folders of them')
    .option('--jobs <n>', 'environments at a time (default 4)')
    .option('--junit <file>', 'write JUnit XML results to FILE')
    .option('--no-containment', 'skip the gate-off containment check of destructive cases')
    .option('--gates-dir <dir>', 'where shipped gates live (default hooks-scripts/)')
    .option(
      '--keep-audit-logs',
      "keep each case's audit log in $HOOKBOX_HOME/audit (by default removed with its environment)",
    )
    .option('--json', 'print the results as JSON')
    .option('--runtime <name>', RUNTIME_OPTION_HELP)
    .action(async (paths: string[], options) => setCode(await testCommand(paths, options, io)));

  root
    .command('validate')
    .description(
      'check a hooks.json (file, or a folder holding .agents/hooks.json) and the scripts it names',
    )
    .argument('<path>')
    .option('--vocabulary <id>', 'check matchers against this tool vocabulary (2026-05, 2026-09)')
    .option('--json', 'print the findings as JSON')
    .action(async (path: string, options) => setCode(await validateCommand(path, options, io)));

  root
    .command('hooks')
    .description('hook configs of other systems')
    .command('import')
    .description(
      "turn an agent's hooks file (Claude Code, Antigravity CLI, Codex hooks.json or config.toml, Copilot, Cursor, Gemini CLI, OpenHands) into DIR/.agents/hooks.json and copy the scripts it names (docs/dialects.md)",
    )
    .argument('<file>')
    .requiredOption(
      '--out <dir>',
      'folder to write .agents/ into (then: hookbox call --sources DIR)',
    )
    .option('--json', 'print the report as JSON')
    .action(async (file: string, options) => setCode(await hooksImportCommand(file, options, io)));

  root
    .command('doctor')
    .description('check the Docker engine and the sandbox image')
    .action(run(() => doctorCommand(io)));
  root
    .command('gc')
    .description(
      'remove containers and volumes of hookbox controllers that are gone, and old audit logs',
    )
    .option('--all', 'remove every hookbox container and volume, live or not')
    .option(
      '--audit-max-age-days <n>',
      'remove audit logs of gone environments not written for N days (default 30)',
    )
    .option(
      '--audit-max-total-mb <n>',
      'then remove the oldest audit logs of gone environments until all fit in N MiB (default 1024)',
    )
    .option('--json', 'print what was removed as JSON')
    .action(async (options) => setCode(await gcCommand(options, io)));
  const image = root.command('image').description('the sandbox image and the controller image');
  image
    .command('build')
    .description('build (or find cached) the sandbox image hookbox/sandbox:<tag>')
    .action(run(() => imageBuildCommand(io)));
  image
    .command('controller')
    .description(
      'build (or find cached) the controller image hookbox/controller:<tag> from the Dockerfile',
    )
    .option(
      '--base <image>',
      '"registry" (node:20-bookworm-slim), "local" (the sandbox base plus this node), or an image',
    )
    .action(async (options) => setCode(await controllerImageCommand(options, io)));
  const template = root
    .command('template')
    .description(
      'sandbox templates: your own image built on the sandbox image (docs/templates.md)',
    );
  template
    .command('build')
    .description(
      'build a template from a folder holding a Dockerfile (or a Dockerfile), and check it',
    )
    .argument(
      '[path]',
      'folder with a Dockerfile, or the Dockerfile; its folder is the build context',
    )
    .option('--name <name>', 'the template name (a-z, 0-9, _ . -)')
    .option('--force', 'rebuild even when nothing changed')
    .option('--stale', 'rebuild every template built on an older sandbox image')
    .option('--json', 'print the result as JSON')
    .action(async (path: string | undefined, options) =>
      setCode(await templateBuildCommand(path, options, io)),
    );
  template
    .command('list')
    .description('the templates: default, shipped ones, built ones (and which are stale)')
    .option('--json', 'print the list as JSON')
    .action(async (options) => setCode(await templateListCommand(options, io)));
  template
    .command('rm')
    .description('remove a built template')
    .argument('<name>')
    .action(async (name: string) => setCode(await templateRemoveCommand(name, io)));
  root
    .command('serve')
    .description('the HTTP API (POST /v1beta/interactions, …) until SIGTERM')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on; 0 picks one (default 8080)')
    .option(
      '--api-keys-file <file>',
      'file of API keys: one per line, or YAML/JSON with name, key or sha256, role, quotas (also HOOKBOX_API_KEYS and, for admins, HOOKBOX_ADMIN_KEYS, comma-separated)',
    )
    .option(
      '--allowed-hosts <names>',
      'comma-separated Host names answered besides loopback ones (with keys: only these)',
    )
    .option(
      '--max-environments <n>',
      'live environments at most, across tenants (default: one per 256 MiB of memory)',
    )
    .option(
      '--max-connections-per-address <n>',
      'open connections per client address (default 256)',
    )
    .option(
      '--state-file <file>',
      'SQLite state: environments and interactions survive a restart (default $HOOKBOX_HOME/state.db)',
    )
    .option(
      '--no-state',
      'keep state in memory only: a restart loses environments and interactions',
    )
    .option('--pool-size <n>', 'warm environments kept ready (default 0)')
    .option(
      '--pool <spec>',
      'warm environments per template, e.g. default=4,full=1 (a bare number is the default template)',
    )
    .option('--policy <file>', 'a policy file (JSON or YAML) run before the sandbox gates')
    .option('--hooks <module...>', 'JavaScript modules exporting controller hooks')
    .option(
      '--snapshot-ttl <seconds>',
      'snapshots are deleted this long after they are taken (default 86400: 24 h; docs/environments.md, "Snapshots and forks")',
    )
    .option(
      '--no-files-api-gates',
      'files-API writes and deletes skip the gates (docs/environments.md, "Files and the gates")',
    )
    .option(
      '--shutdown-grace <seconds>',
      'on SIGTERM, how long interactions in flight may take to finish before the server exits anyway (default 25)',
    )
    .option(
      '--metrics-port <port>',
      'also serve GET /metrics with no key on 127.0.0.1 at this port (it is behind the keys on --port)',
    )
    .option('--runtime <name>', RUNTIME_OPTION_HELP)
    .option(
      '--state-url <url>',
      'shared state in PostgreSQL (postgres://…) instead of a SQLite file',
    )
    .option('--backend <name>', 'where sandboxes run: docker or kubernetes (default docker)')
    .option('--namespace <name>', 'kubernetes: namespace of the sandbox pods (default hookbox)')
    .option('--sandbox-image <image>', 'kubernetes: the sandbox image as the nodes pull it')
    .option(
      '--runtime-class <runtime=class...>',
      'kubernetes: RuntimeClass per runtime, e.g. runsc=gvisor',
    )
    .action(async (options) => setCode(await serveCommand(options, io)));
  const k8s = root.command('k8s').description('deploying hookbox on Kubernetes');
  k8s
    .command('manifests')
    .description(
      'print the Kubernetes objects of a deployment (Deployment, Service, RBAC, NetworkPolicy, RuntimeClass)',
    )
    .requiredOption('--controller-image <image>', 'the controller image as the nodes pull it')
    .requiredOption('--sandbox-image <image>', 'the sandbox image as the nodes pull it')
    .option(
      '--namespace <name>',
      'namespace of the controller and the sandbox pods (default hookbox)',
    )
    .option('--replicas <n>', 'controller replicas; they share PostgreSQL state (default 2)')
    .option('--secret <name>', 'Secret with keys url (PostgreSQL) and api-keys (default hookbox)')
    .option(
      '--gvisor-runtime-class <name>',
      'add a RuntimeClass (handler runsc) and run sandboxes on it',
    )
    .action(async (options) => setCode(await k8sManifestsCommand(options, io)));
  root
    .command('run')
    .description(
      'run one interaction from a request body (as POST /v1beta/interactions takes it), here or on a server',
    )
    .argument('<request>', 'a JSON file holding the request body ("-" for stdin)')
    .option('--url <url>', 'a hookbox server, e.g. http://127.0.0.1:8080 (default: run here)')
    .option('--api-key <key>', "the server's API key (default $HOOKBOX_API_KEY)")
    .option('--json', 'print the Interaction as JSON')
    .action(async (file: string, options) => setCode(await runCommand(file, options, io)));
  root
    .command('demo')
    .description('the security gate blocks `rm -rf /tmp/forbidden`, lets `echo hello` through')
    .action(run(() => demoCommand(io)));
  return root;
}

/**
 * Runs the CLI and returns its exit status: 0 when the command did its job (a blocked call is a job
 * done), 2 for bad input (with a message naming what is wrong), 1 for a failure of the runtime.
 */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  let code = 0;
  try {
    await program(io, (value) => (code = value)).parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not errors; everything else commander refuses is bad input.
      return error.exitCode === 0 ? 0 : 2;
    }
    const failure = toHookboxError(error);
    io.stderr(`hookbox: ${failure.kind === 'user' ? 'error' : 'failure'}: ${failure.message}\n`);
    if (failure.kind === 'system' && process.env.HOOKBOX_DEBUG)
      io.stderr(`${(error as Error).stack}\n`);
    return exitCodeOf(failure);
  }
}
