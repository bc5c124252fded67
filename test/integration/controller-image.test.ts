// The controller image (top-level Dockerfile): built with no registry (cached by content hash), run
// against this engine through the mounted Docker socket, driven through one interaction, stopped.
import { execa } from 'execa';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction } from '../../src/interactions/schema.js';
import { packageRoot } from '../../src/paths.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { LABEL_ENVIRONMENT, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { ensureControllerImage } from '../../src/server/controller-image.js';
import { codeCall, scripted, SECURITY_GATE_REQUEST } from '../unit/interactions/gemini-requests.js';

const KEY = 'controller-image-test-key';
const TEST_LABEL = 'dev.hookbox.test';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const client = new DockerContainerClient(logger);
const docker = client.docker;

let tag: string;
let containerId: string | undefined;
let url: string;

async function logsOf(id: string): Promise<string> {
  const buffer = await docker.getContainer(id).logs({ stdout: true, stderr: true });
  // Strip the 8-byte stream headers of a non-TTY container's log frames.
  const out: string[] = [];
  for (let at = 0; at + 8 <= buffer.length;) {
    const size = buffer.readUInt32BE(at + 4);
    out.push(buffer.subarray(at + 8, at + 8 + size).toString('utf8'));
    at += 8 + size;
  }
  return out.join('');
}

beforeAll(async () => {
  // The image runs the CLI compiled from the current sources.
  const dist = mkdtempSync(join(tmpdir(), 'hookbox-controller-dist-'));
  await execa(
    process.execPath,
    [
      join(packageRoot(), 'node_modules/typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      dist,
    ],
    { cwd: packageRoot(), reject: false },
  );
  expect(existsSync(join(dist, 'src/cli/main.js'))).toBe(true);
  const started = performance.now();
  tag = await ensureControllerImage(client, logger, {
    distDir: dist,
    // Stages only: a build's every step would flood the test log.
    onProgress: (message, kind) => {
      if (kind !== 'step') process.stderr.write(`[hookbox] ${message}\n`);
    },
  });
  process.stderr.write(
    `[hookbox] controller image ${tag} ready in ${Math.round(performance.now() - started)} ms\n`,
  );

  const container = await docker.createContainer({
    Image: tag,
    Env: [`HOOKBOX_API_KEYS=${KEY}`],
    Labels: { [TEST_LABEL]: 'controller-image' },
    ExposedPorts: { '8080/tcp': {} },
    HostConfig: {
      Binds: ['/var/run/docker.sock:/var/run/docker.sock'],
      PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
    },
  });
  containerId = container.id;
  await container.start();
  const info = await container.inspect();
  const port = info.NetworkSettings.Ports['8080/tcp']?.[0]?.HostPort;
  url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || !(await container.inspect()).State.Running)
      throw new Error(`the controller did not come up:\n${await logsOf(container.id)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 600_000);

afterAll(async () => {
  if (containerId)
    await docker
      .getContainer(containerId)
      .remove({ force: true })
      .catch(() => {});
});

describe('the controller image', () => {
  it('serves on 0.0.0.0 with a key, runs an interaction on the host engine, and cleans up on SIGTERM', async () => {
    const unauthenticated = await fetch(`${url}/v1beta/environments`);
    expect(unauthenticated.status).toBe(401);

    const response = await fetch(`${url}/v1beta/interactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
      body: JSON.stringify(
        scripted(SECURITY_GATE_REQUEST, codeCall('rm -rf /tmp/forbidden'), codeCall('echo hello')),
      ),
    });
    expect(response.status).toBe(200);
    const interaction = (await response.json()) as Interaction;
    expect(interaction.status).toBe('completed');
    expect(interaction.steps[2]).toMatchObject({
      type: 'code_execution_result',
      blocked: true,
      is_error: true,
      result: 'Destructive command blocked by security gate.',
    });
    expect(interaction.steps[4]).toMatchObject({ structured_result: { stdout: 'hello\n' } });

    // The console's page and the UI library are in the image (docs/console.md).
    const consolePage = await fetch(`${url}/console`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('/console/static/app.js');
    expect((await fetch(`${url}/console/vendor/preact.js`)).status).toBe(200);

    // The environment is a sibling container on the host's engine.
    const mine = [`${LABEL_MANAGED}=true`, `${LABEL_ENVIRONMENT}=${interaction.environment_id}`];
    expect(await client.listContainers(mine)).toHaveLength(1);

    // docker stop sends SIGTERM: in-flight work finishes, environments are deleted, exit 0.
    await docker.getContainer(containerId!).stop({ t: 60 });
    const state = (await docker.getContainer(containerId!).inspect()).State;
    expect(state.ExitCode, await logsOf(containerId!)).toBe(0);
    expect(await logsOf(containerId!)).toContain('hookbox serve: stopped');
    expect(await client.listContainers(mine)).toHaveLength(0);
    expect(await client.listVolumes(mine)).toHaveLength(0);
  });
});
