import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { EgressRecord } from './egress-record.js';
import { AUDIT_LIMITS, boundedLine, type AuditBudget } from './audit-bound.js';
import type { HookRecord, LifecycleHookRecord } from './types.js';

/** One line of an environment's audit log. */
/** What happened to an environment, as its audit log's `environment` entries say. */
export type EnvironmentEventName =
  | 'created'
  | 'reattached'
  | 'gates_replaced'
  | 'network_replaced'
  | 'deleted'
  /** A snapshot was taken of it, or it was forked (docs/environments.md, "Snapshots and forks"). */
  | 'snapshot_taken'
  | 'forked';

export type AuditEntry =
  | ({ kind: 'hook'; at: string } & HookRecord)
  | ({ kind: 'lifecycle_hook'; at: string } & LifecycleHookRecord)
  | ({ kind: 'egress'; at: string } & EgressRecord)
  | {
      kind: 'tool_call';
      at: string;
      environment_id: string;
      call_id: string;
      /** As the caller sent it. */
      tool_call: { name: string; args: Record<string, unknown> };
      /** The arguments that ran, when a controller hook rewrote them. */
      rewritten_args?: Record<string, unknown>;
      blocked: boolean;
      reason: string | null;
      error?: string;
      /** The raw result, exactly as the tool gave it. */
      result?: Record<string, unknown>;
      /** What the model was shown, when a controller hook changed it. */
      presented?: Record<string, unknown>;
      /** Where the approval stood, when a hook answered `ask` (docs/dialects.md). */
      approval?: { status: string; reason: string | null; expires_at?: string };
      /** What hooks added to what the model was shown (`additionalContext`). */
      additional_context?: string[];
      /** Who acted, when not the owner (an admin). */
      actor?: string;
    }
  | {
      kind: 'environment';
      at: string;
      environment_id: string;
      event: EnvironmentEventName;
      detail?: unknown;
      actor?: string;
    }
  | {
      /** A change through the files API (docs/environments.md, "Files"). */
      kind: 'file';
      at: string;
      environment_id: string;
      call_id: string;
      op: 'put' | 'put_tar' | 'delete';
      path: string;
      /** Whether the change met the gates (the operator may turn that off). */
      gated: boolean;
      blocked: boolean;
      reason: string | null;
      files?: number;
      bytes?: number;
      error?: string;
    }
  | {
      /** An approver's answer to a call that waited (docs/dialects.md, "ask"). */
      kind: 'approval';
      at: string;
      environment_id: string;
      call_id: string;
      /** Null for a call that came over MCP (docs/mcp.md, "ask"). */
      interaction_id: string | null;
      status: 'approved' | 'denied' | 'expired';
      reason: string | null;
      /**
       * Who decided: the tenant of the key that sent the answer (`local` on a server without keys),
       * an MCP client's user (docs/mcp.md, "ask"), or `nobody (expired)`; absent from the library,
       * which has no callers.
       */
      decided_by?: string;
    };

export function auditLogPath(home: string, environmentId: string): string {
  return join(home, 'audit', `${environmentId}.jsonl`);
}

/**
 * The append-only audit log of one environment (docs/contract.md §8), written by the controller, never inside the
 * sandbox. Each entry is written with one write(2) on an O_APPEND descriptor before the call goes on,
 * so a controller crash loses nothing that was recorded.
 */
export class AuditLog {
  private fd: number | undefined;

  /**
   * @param tenant the tenant that owns the environment: every entry carries it (docs/tenants.md,
   *   "The record").
   */
  constructor(
    readonly path: string,
    readonly tenant: string | null = null,
  ) {
    mkdirSync(join(path, '..'), { recursive: true });
    this.fd = openSync(path, 'a', 0o600);
  }

  /**
   * Appends one entry, at most {@link AUDIT_LIMITS}.maxEntryBytes long; with a call's `budget`,
   * also within what the call has left (never below minEntryBytes, so the facts are always kept).
   */
  append(entry: AuditEntry, budget?: AuditBudget): void {
    if (this.fd === undefined) return;
    const tagged = this.tenant === null ? entry : { ...entry, tenant: this.tenant };
    const limit = Math.min(
      AUDIT_LIMITS.maxEntryBytes,
      Math.max(AUDIT_LIMITS.minEntryBytes, budget?.remainingBytes ?? Infinity),
    );
    const line = boundedLine(tagged, limit) + '\n';
    if (budget) budget.remainingBytes -= Buffer.byteLength(line);
    writeSync(this.fd, line);
  }

  close(): void {
    if (this.fd === undefined) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Reads an environment's audit log back, entry by entry. */
export function readAuditLog(path: string): (AuditEntry & { tenant?: string })[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditEntry & { tenant?: string });
}
