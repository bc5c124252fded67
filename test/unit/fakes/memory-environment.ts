/**
 * A real Environment (call pipeline, hook engine, SandboxHandlers, AgentConnection) over an
 * in-memory agent (docs/testing.md, "The fast tier"): everything of the call path but Docker and
 * the image's scripts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHooksConfig } from '../../../src/config/hooks-config.js';
import { Environment } from '../../../src/controller/environment.js';
import type { HookRunner } from '../../../src/hooks/controller-hooks/runner.js';
import { AuditLog, readAuditLog, type AuditEntry } from '../../../src/record/audit-log.js';
import { createLogger } from '../../../src/record/logger.js';
import { Sandbox } from '../../../src/sandbox/sandbox.js';
import type { VocabularyId } from '../../../src/tools/registry.js';
import type { MemoryAgent, MemoryAgentOptions } from './memory-agent.js';
import { MemoryContainerClient } from './memory-container-client.js';

export interface MemoryEnvironment {
  environment: Environment;
  agent: MemoryAgent;
  client: MemoryContainerClient;
  containerId: string;
  /** The environment's audit log as written so far. */
  audit(): AuditEntry[];
  close(): Promise<void>;
}

let made = 0;

/** An environment whose gates are `hooksJson` (the object of .agents/hooks.json). */
export async function memoryEnvironment(options: {
  hooksJson: Record<string, unknown>;
  agent?: MemoryAgentOptions;
  vocabulary?: VocabularyId;
  controllerHooks?: HookRunner;
  /** @default true */
  prestart?: boolean;
}): Promise<MemoryEnvironment> {
  const logger = createLogger({ level: 'silent' });
  const client = new MemoryContainerClient();
  const { id: containerId, agent } = await client.runAgent(options.agent);
  const environmentId = `env_memory${String(++made).padStart(14, '0')}`;
  const sandbox = await Sandbox.reattach({ client, logger, environmentId, containerId });
  const home = mkdtempSync(join(tmpdir(), 'hookbox-fast-'));
  const auditPath = join(home, 'audit.jsonl');
  const environment = new Environment({
    sandbox,
    gates: parseHooksConfig(JSON.stringify(options.hooksJson)),
    vocabulary: options.vocabulary ?? '2026-05',
    settings: { timeoutMs: 5_000, outputCapBytes: 64 * 1024, backgroundProcesses: false },
    audit: new AuditLog(auditPath),
    logger,
    ...(options.controllerHooks ? { controllerHooks: options.controllerHooks } : {}),
    hookProcesses: { prestart: options.prestart ?? true },
  });
  return {
    environment,
    agent,
    client,
    containerId,
    audit: () => readAuditLog(auditPath),
    close: async () => {
      await environment.delete().catch(() => {});
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A hook that prints `answer` as its JSON answer (exit 0). */
export function answers(answer: object) {
  return () => ({ stdout: JSON.stringify(answer) });
}
