// Shared by the server-*.test.ts files: `hookbox serve` in this process (port 0) against real
// containers. Each test file gets its own server: `beforeAll(startSharedServer)` and
// `afterAll(closeSharedServer)`; `call` and `create` speak to it.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { Controller } from '../../src/controller/controller.js';
import type { DriverRegistry } from '../../src/interactions/drivers/index.js';
import type { Interaction } from '../../src/interactions/schema.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { diskRootOf } from '../../src/sandbox/workspace-disk.js';
import { LABEL_CONTROLLER, LABEL_MANAGED } from '../../src/sandbox/labels.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { fetchJson } from './api-helpers.js';

export const KEY = 'integration-test-key';
const logger = createLogger({ level: process.env.HOOKBOX_LOG_LEVEL ?? 'silent' });
const docker = new DockerContainerClient(logger);

export async function serverWith(
  options: { environmentTtlMs?: number; sweepIntervalMs?: number; drivers?: DriverRegistry } = {},
): Promise<RunningServer> {
  const controller = await Controller.start({
    home: mkdtempSync(join(tmpdir(), 'hookbox-server-')),
    logger,
    startEngine: false,
  });
  return startServer({
    host: '127.0.0.1',
    port: 0,
    apiKeys: [KEY],
    logger,
    controller,
    ...options,
  });
}

/** Containers, volumes and workspace disks of one server's controller. */
export async function resourcesOf(
  server: RunningServer,
): Promise<{ containers: number; volumes: number; disks: number }> {
  const filter = [
    `${LABEL_MANAGED}=true`,
    `${LABEL_CONTROLLER}=${server.service.controller.identity.id}`,
  ];
  const [containers, volumes] = await Promise.all([
    docker.listContainers(filter),
    docker.listVolumes(filter),
  ]);
  let disks = 0;
  try {
    disks = readdirSync(diskRootOf(server.service.controller.home)).length;
  } catch {
    // No disk root yet: no disk was ever made.
  }
  return { containers: containers.length, volumes: volumes.length, disks };
}

/** A parsed answer: an error body, an Interaction, an environment… (tests read what they expect). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Answer = any;

export let server: RunningServer;

/** Starts this file's server (each test file's beforeAll). */
export async function startSharedServer(): Promise<void> {
  server = await serverWith();
}

/** Each test file's afterAll. */
export async function closeSharedServer(): Promise<void> {
  await server?.close();
}

/** A request to this file's server with its key (`headers` may replace it), parsed. */
export function call(
  method: string,
  path: string,
  body?: string | object,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Answer; text: string; type: string | null }> {
  return fetchJson(server, method, path, body, { 'x-goog-api-key': KEY, ...headers });
}

export const create = async (body: object): Promise<Interaction> => {
  const answer = await call('POST', '/v1beta/interactions', body);
  expect(answer.status, answer.text).toBe(200);
  return answer.json as Interaction;
};
