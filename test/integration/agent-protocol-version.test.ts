/**
 * The protocol version is checked on connect against a real agent (docs/agent-protocol.md,
 * Versions): an image whose agent reports another version is refused with
 * `sandbox_agent_incompatible` naming both versions, and nothing made for it is left behind.
 */
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { SystemError } from '../../src/errors/index.js';
import { newControllerId, newEnvironmentId } from '../../src/ids.js';
import { createLogger } from '../../src/record/logger.js';
import { DockerContainerClient } from '../../src/backends/docker/docker-container-client.js';
import { imageTags } from '../../src/sandbox/image.js';
import { LABEL_ENVIRONMENT } from '../../src/sandbox/labels.js';
import { PROTOCOL_VERSION } from '../../src/sandbox/protocol/index.js';
import { Sandbox } from '../../src/sandbox/sandbox.js';

const logger = createLogger({ level: 'silent' });
const client = new DockerContainerClient(logger);
const base = imageTags().sandbox;
// The sandbox image with the agent's protocol document saying another version.
const OTHER = PROTOCOL_VERSION + 41;
const image = `hookbox-test/agent-protocol-${OTHER}:${base.split(':')[1]}`;

afterAll(async () => {
  await execa('docker', ['rmi', '-f', image], { reject: false });
});

describe('the agent protocol version', () => {
  it('an agent of another version: sandbox_agent_incompatible naming both, nothing left', async () => {
    await execa('docker', ['build', '-q', '-t', image, '-'], {
      input: [
        `FROM ${base}`,
        `RUN sed -i 's/"protocol_version": ${PROTOCOL_VERSION},/"protocol_version": ${OTHER},/' /opt/hookbox/agent/protocol.schema.json`,
      ].join('\n'),
    });
    const environmentId = newEnvironmentId();
    const error = await Sandbox.create({
      client,
      logger,
      controller: { id: newControllerId(), pid: process.pid },
      environmentId,
      image,
      sources: [],
    }).then(
      async (sandbox) => {
        await sandbox.destroy();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SystemError);
    const refused = error as SystemError;
    expect([refused.code, refused.retryable]).toEqual(['sandbox_agent_incompatible', false]);
    expect(refused.message).toContain(
      `the sandbox agent of image ${image} speaks protocol ${OTHER}, this hookbox ${PROTOCOL_VERSION}`,
    );
    expect(refused.details).toEqual({
      agent_protocol: OTHER,
      controller_protocol: PROTOCOL_VERSION,
    });
    expect(await client.listContainers([`${LABEL_ENVIRONMENT}=${environmentId}`])).toEqual([]);
  });

  it('the image this hookbox builds connects', async () => {
    const sandbox = await Sandbox.create({
      client,
      logger,
      controller: { id: newControllerId(), pid: process.pid },
      environmentId: newEnvironmentId(),
      image: base,
      sources: [],
    });
    try {
      const answer = await sandbox.request('kill_tool_processes', {}, 10_000);
      expect(answer).toEqual({ killed: 0 });
    } finally {
      await sandbox.destroy();
    }
  });
});
