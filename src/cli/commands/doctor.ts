import { defaultLogger } from '../../record/logger.js';
import { DockerContainerClient } from '../../backends/docker/docker-container-client.js';
import { describeNoEngine, dockerHostOf } from '../../backends/docker/docker-host.js';
import { imageStatus } from '../../sandbox/image.js';
import { listTemplates } from '../../templates/template-image.js';
import type { CliIo } from '../io.js';

/** A runtime as `docker info` lists it. */
interface RuntimeInfo {
  path?: string;
  runtimeArgs?: string[];
}

/**
 * `hookbox doctor`: is an engine reachable, is the image present and current, which templates are
 * stale, what to do if not.
 */
export async function doctorCommand(io: CliIo): Promise<number> {
  const client = new DockerContainerClient(defaultLogger());
  const host = dockerHostOf();
  let healthy = true;
  const say = (ok: boolean, what: string, fix?: string) => {
    io.stdout(`${ok ? '✔' : '✖'} ${what}\n`);
    if (!ok && fix) io.stdout(`    → ${fix}\n`);
    healthy &&= ok;
  };
  io.stdout(`node ${process.version}\n`);
  try {
    await client.ping();
    const version = await client.docker.version();
    say(
      true,
      `Docker engine answers at ${host.address} (server ${version.Version}, API ${version.ApiVersion})`,
    );
  } catch (error) {
    say(
      false,
      describeNoEngine(host, (error as Error).message),
      host.startable
        ? "run `npm run setup` (starts dockerd, installing Debian's docker.io if needed) or start Docker yourself"
        : 'start the engine DOCKER_HOST names, or unset DOCKER_HOST to use the default socket',
    );
    return 1;
  }
  // gVisor is optional: its absence is reported, not a failure (docs/gvisor.md).
  const runtimes = ((await client.docker.info()) as { Runtimes?: Record<string, RuntimeInfo> })
    .Runtimes;
  const runsc = runtimes?.runsc;
  io.stdout(
    runsc
      ? `✔ gVisor runtime runsc registered (${runsc.path ?? 'runsc'} ${(runsc.runtimeArgs ?? []).join(' ')}); use --runtime runsc or sandbox.runtime\n`
      : '- gVisor runtime runsc not registered (optional; `bash scripts/ensure-runsc.sh` installs and registers it)\n',
  );
  const status = await imageStatus(client);
  say(
    status.basePresent,
    `base image ${status.tags.base}`,
    "run `hookbox image build` (builds it from Debian's packages with debootstrap)",
  );
  say(
    status.sandboxPresent,
    `sandbox image ${status.tags.sandbox} (current for this checkout)`,
    'run `hookbox image build`',
  );
  // Templates built on another sandbox image are refused until rebuilt (docs/templates.md,
  // "Upgrades"); a warning, since every other template still works.
  for (const template of await listTemplates(client, status.tags.sandbox)) {
    if (template.stale)
      io.stdout(
        `! template ${template.name} is stale (built on ${template.base})\n    → run \`hookbox template build --stale\` (or \`hookbox template build ${template.source} --name ${template.name}\`)\n`,
      );
    else io.stdout(`✔ template ${template.name} (current)\n`);
  }
  return healthy ? 0 : 1;
}
