/**
 * An in-memory sandbox agent for the fast tier (docs/testing.md, "The fast tier"): it reads the
 * same newline-framed JSON requests as sandbox-image/agent/main.py, checks each against the agent
 * protocol (src/sandbox/protocol/), and answers over in-memory streams, so the controller's real
 * AgentConnection, Sandbox and call pipeline talk to it unchanged. Hooks and tool code are
 * JavaScript functions; files live in a map (memory-files.ts).
 *
 * NOT a sandbox: nothing is contained, no process runs, no user or mount exists. Containment is
 * tested by the integration tier against the real image.
 */
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { AttachedStdio } from '../../../src/sandbox/container-runtime.js';
import { checkRequest } from '../../../src/sandbox/protocol/check.js';
import {
  PROTOCOL_VERSION,
  requestEnvelope,
  type AgentAnswerOf,
  type AgentOp,
  type AgentRequestOf,
} from '../../../src/sandbox/protocol/index.js';
import { file202609Tool, fileTool, MemoryFiles } from './memory-files.js';

/** What a hook or tool code "printed": the end of a process, as the agent reports it. */
export interface MemoryProcess {
  exit_code?: number;
  stdout?: string;
  stderr?: string;
}

/** A command handler: the hook's stdin (the event JSON) and env in, its output out. */
export type MemoryHook = (event: {
  stdin: string;
  env: Record<string, string>;
}) => MemoryProcess | Promise<MemoryProcess>;

/** Tool code: what `code_execution` runs. */
export type MemoryCode = (run: {
  code: string;
  language: string;
  env: Record<string, string>;
  files: MemoryFiles;
  /** Sends a chunk of live output (when the request asked for it). */
  write(stream: 'stdout' | 'stderr', chunk: string): void;
}) => MemoryProcess | Promise<MemoryProcess>;

export interface MemoryAgentOptions {
  /** Command handlers by their `command` text in hooks.json; any other command exits 127. */
  hooks?: Record<string, MemoryHook>;
  /** Runs tool code. @default {@link tinyShell} */
  code?: MemoryCode;
  /** Files to start with, by path (relative: under /workspace). */
  files?: Record<string, string>;
  /** What `kill_tool_processes` does before it is answered. @default nothing */
  kill?: () => void | Promise<void>;
}

/** A request the agent received, for tests to count (one request per gated call, say). */
export interface ReceivedRequest {
  op: AgentOp;
  body: Record<string, unknown>;
}

/**
 * The default tool code: each line is `echo TEXT`, `cat PATH`, `exit N` or `true`; anything else
 * is "command not found" (exit 127), as a shell would say.
 */
export const tinyShell: MemoryCode = ({ code, files }) => {
  let stdout = '';
  for (const line of code.split('\n').map((text) => text.trim())) {
    if (line === '' || line === 'true') continue;
    const [word, ...rest] = line.split(/\s+/);
    const arg = rest.join(' ');
    if (word === 'echo') stdout += `${arg.replace(/^(['"])(.*)\1$/, '$2')}\n`;
    else if (word === 'cat') {
      const text = files.read(arg);
      if (text === undefined)
        return { exit_code: 1, stdout, stderr: `cat: ${arg}: No such file\n` };
      stdout += text;
    } else if (word === 'exit') return { exit_code: Number(arg) || 0, stdout };
    else return { exit_code: 127, stdout, stderr: `sh: ${word}: command not found\n` };
  }
  return { exit_code: 0, stdout };
};

/** The agent's own reading of a plain allow (sandbox-image/agent/plain_allow.py). */
function plainlyAllows(end: AgentAnswerOf<'run_hook'>): boolean {
  if (end.exit_code !== 0 || end.signal !== null || end.timed_out || end.truncated) return false;
  try {
    const parsed: unknown = JSON.parse(end.stdout);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const answer = parsed as Record<string, unknown>;
    return (
      answer.decision === 'allow' &&
      Object.keys(answer).every((key) => key === 'decision' || key === 'reason') &&
      typeof (answer.reason ?? '') === 'string'
    );
  } catch {
    return false;
  }
}

/** Runs `work` within `timeoutMs`; past it, the end of a killed process (SIGKILL, 128 + 9). */
async function bounded(
  work: () => MemoryProcess | Promise<MemoryProcess>,
  timeoutMs: number,
): Promise<AgentAnswerOf<'run_code'>> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const end = await Promise.race([Promise.resolve().then(work), timedOut]);
    const duration_ms = performance.now() - started;
    if (end === 'timeout')
      return {
        exit_code: 137,
        stdout: '',
        stderr: '',
        timed_out: true,
        truncated: false,
        duration_ms,
      };
    return {
      exit_code: end.exit_code ?? 0,
      stdout: end.stdout ?? '',
      stderr: end.stderr ?? '',
      timed_out: false,
      truncated: false,
      duration_ms,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** One in-memory agent: a container's worth of state, served to every stream {@link connect} opens. */
export class MemoryAgent {
  readonly files: MemoryFiles;
  /** The gates' files (/.agents), by path relative to it. */
  readonly agents = new Map<string, string>();
  /** Every request received, in order. */
  readonly requests: ReceivedRequest[] = [];
  readonly instance = randomUUID();
  private readonly hooks: Record<string, MemoryHook>;
  private readonly code: MemoryCode;
  private readonly kill: () => void | Promise<void>;
  private readonly streams = new Set<PassThrough>();

  constructor(options: MemoryAgentOptions = {}) {
    this.files = new MemoryFiles(options.files);
    this.hooks = options.hooks ?? {};
    this.code = options.code ?? tinyShell;
    this.kill = options.kill ?? (() => {});
  }

  /** The requests of one operation, bodies typed. */
  requestsOf<Op extends AgentOp>(op: Op): AgentRequestOf<Op>[] {
    return this.requests.filter((r) => r.op === op).map((r) => r.body as AgentRequestOf<Op>);
  }

  /** A new stream to the agent, as `docker attach` gives one: requests in, answers out. */
  connect(): AttachedStdio {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    this.streams.add(stdout);
    const lines = createInterface({ input: stdin, crlfDelay: Infinity });
    const send = (message: object) => stdout.write(`${JSON.stringify(message)}\n`);
    lines.on('line', (line) => {
      if (line.trim() !== '') void this.answer(line, send);
    });
    const close = () => {
      this.streams.delete(stdout);
      stdin.end();
      stdout.end();
      stderr.end();
    };
    return { stdin, stdout, stderr, close };
  }

  /** The agent dies: every stream ends (the controller reads a lost agent). */
  stop(): void {
    for (const stdout of this.streams) stdout.end();
    this.streams.clear();
  }

  private async answer(line: string, send: (message: object) => void): Promise<void> {
    let id: number | null = null;
    try {
      const { id: requestId, op, ...body } = requestEnvelope.parse(JSON.parse(line));
      id = requestId;
      checkRequest(op, body);
      this.requests.push({ op: op as AgentOp, body });
      const result = await this.carryOut(op as AgentOp, body, (stream, chunk) =>
        send({ id: requestId, event: 'output', stream, chunk }),
      );
      send({ id, ok: true, result });
    } catch (error) {
      send({ id, ok: false, error: (error as Error).message });
    }
  }

  private async carryOut(
    op: AgentOp,
    body: Record<string, unknown>,
    write: (stream: 'stdout' | 'stderr', chunk: string) => void,
  ): Promise<unknown> {
    switch (op) {
      case 'ping':
        return {
          protocol: PROTOCOL_VERSION,
          pid: 1,
          time: Date.now() / 1000,
          instance: this.instance,
        };
      case 'run_code':
        return this.runCode(body as AgentRequestOf<'run_code'>, write);
      case 'run_hook':
        return this.runHook(body as AgentRequestOf<'run_hook'>);
      case 'prestart_hooks':
        return { started: 0, waiting: 0, workers: 0 };
      case 'kill_tool_processes':
        await this.kill();
        return { killed: 0 };
      case 'file':
        return fileTool(this.files, body as AgentRequestOf<'file'>);
      case 'file_2026_09':
        return file202609Tool(this.files, body as AgentRequestOf<'file_2026_09'>);
      case 'write_sources':
      case 'replace_agents':
        return this.placeSources(op, body as AgentRequestOf<'write_sources'>);
      case 'reset_agents':
        this.agents.clear();
        return { ok: true };
      default:
        throw new Error(`${op} is not offered by the in-memory agent`);
    }
  }

  private runCode(
    request: AgentRequestOf<'run_code'>,
    write: (stream: 'stdout' | 'stderr', chunk: string) => void,
  ): Promise<AgentAnswerOf<'run_code'>> {
    const live = request.stream_output === true ? write : () => {};
    return bounded(
      () =>
        this.code({
          code: request.code,
          language: request.language,
          env: request.env ?? {},
          files: this.files,
          write: live,
        }),
      request.timeout_ms,
    );
  }

  private async runHook(request: AgentRequestOf<'run_hook'>): Promise<AgentAnswerOf<'run_hook'>> {
    const stdin =
      request.stdin_b64 === undefined
        ? (request.stdin ?? '')
        : Buffer.from(request.stdin_b64, 'base64').toString('utf8');
    const hook = this.hooks[request.command];
    const ran = await bounded(
      () =>
        hook
          ? hook({ stdin, env: request.env ?? {} })
          : { exit_code: 127, stderr: `sh: ${request.command}: not found\n` },
      request.timeout_ms,
    );
    const end: AgentAnswerOf<'run_hook'> = {
      ...ran,
      signal: ran.timed_out ? 9 : null,
      runner: 'spawned',
    };
    const follow = request.then_run_code;
    if (follow !== undefined && plainlyAllows(end))
      end.then = await this.runCode({ ...follow, stream_output: false }, () => {});
    return end;
  }

  private placeSources(
    op: 'write_sources' | 'replace_agents',
    request: AgentRequestOf<'write_sources'>,
  ): AgentAnswerOf<'write_sources'> {
    if (op === 'replace_agents') this.agents.clear();
    for (const file of request.files) {
      const text = file.content ?? Buffer.from(file.content_b64 ?? '', 'base64').toString('utf8');
      if (file.area === 'agents') this.agents.set(file.path, text);
      else this.files.write(file.path, text);
    }
    return { written: request.files.length };
  }
}
