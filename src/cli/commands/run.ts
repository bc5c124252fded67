import { readFileSync } from 'node:fs';
import { Hookbox, HookboxApiError } from '../../client/index.js';
import { Controller } from '../../controller/controller.js';
import { UserError } from '../../errors/index.js';
import { parseInteractionRequest } from '../../interactions/request.js';
import type { RunEvent } from '../../interactions/prepared-interaction.js';
import type {
  Interaction,
  InteractionEvent,
  InteractionRequest,
} from '../../interactions/schema.js';
import { InteractionService } from '../../interactions/service.js';
import { formatFooter, formatHeader, formatStep } from '../../interactions/transcript.js';
import type { CliIo } from '../io.js';
import { removingOnSignal } from '../interrupt.js';

export interface RunCommandOptions {
  /** A hookbox server; without it the interaction runs here, with no server. */
  url?: string;
  /** @default $HOOKBOX_API_KEY */
  apiKey?: string;
  json?: boolean;
}

function readRequest(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      { details: { field: 'REQUEST' } },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new UserError(
      'invalid_argument',
      `${file}: not valid JSON (${(error as Error).message})`,
      {
        details: { field: 'REQUEST' },
      },
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UserError(
      'invalid_argument',
      `${file}: must hold one JSON object, the request body`,
      {
        details: { field: 'REQUEST' },
      },
    );
  }
  return body as Record<string, unknown>;
}

/** Prints a transcript as the events come. */
function printer(io: CliIo): (event: RunEvent) => void {
  return (event) => {
    if (event.event_type === 'interaction.created') io.stdout(formatHeader(event.interaction));
    else if (event.event_type === 'step') io.stdout(formatStep(event.step));
    else if (event.event_type === 'interaction.complete')
      io.stdout(formatFooter(event.interaction));
    // The result step prints the whole output; the live chunks would print it twice.
  };
}

/**
 * Prints a server's stream (the SDKs' events): the header at once, the steps whole from the final
 * Interaction (a step's pieces come as deltas; the final one holds each whole).
 */
function remotePrinter(io: CliIo): (event: InteractionEvent) => void {
  return (event) => {
    if (event.event_type === 'interaction.created') io.stdout(formatHeader(event.interaction));
    else if (event.event_type === 'interaction.completed') {
      for (const step of event.interaction.steps) io.stdout(formatStep(step));
      io.stdout(formatFooter(event.interaction));
    } else if (event.event_type === 'error')
      io.stderr(`hookbox: stream broke off: ${event.error.code}: ${event.error.message}\n`);
  };
}

/**
 * Exit status of a finished interaction: 0 completed (blocked calls included) or waiting for an
 * approval (`requires_action`, docs/dialects.md), 1 failed.
 */
const statusOf = (interaction: Interaction | undefined) =>
  interaction?.status === 'completed' || interaction?.status === 'requires_action' ? 0 : 1;

async function runRemote(
  body: Record<string, unknown>,
  options: RunCommandOptions,
  io: CliIo,
): Promise<number> {
  const apiKey = options.apiKey ?? process.env.HOOKBOX_API_KEY;
  const client = new Hookbox({ baseUrl: options.url!, ...(apiKey ? { apiKey } : {}) });
  try {
    if (options.json) {
      const interaction = await client.interactions.create({
        ...(body as InteractionRequest),
        stream: false,
      });
      io.stdout(JSON.stringify(interaction, null, 2) + '\n');
      return statusOf(interaction);
    }
    const print = remotePrinter(io);
    let final: Interaction | undefined;
    const events = await client.interactions.create({
      ...(body as InteractionRequest),
      stream: true,
    });
    for await (const event of events) {
      print(event);
      if (event.event_type === 'interaction.completed') final = event.interaction;
    }
    return statusOf(final);
  } catch (error) {
    if (!(error instanceof HookboxApiError)) throw error;
    // The server's literal code decides the exit code, as a local error's would (exitCodeOf).
    throw error.toHookboxError(
      error.isClientError
        ? `${error.message} (HTTP ${error.status})`
        : `${options.url}: ${error.message}`,
    );
  }
}

async function runLocal(body: Record<string, unknown>, options: RunCommandOptions, io: CliIo) {
  // Retention applies where logs are written (docs/operations.md, "Audit logs").
  const controller = await Controller.start({ auditRetention: {} });
  // Nobody can answer an `ask` here: it blocks ("approval required: …"; docs/dialects.md).
  const service = new InteractionService({ controller, approver: false });
  return removingOnSignal(controller, io, async () => {
    try {
      const prepared = await service.prepare(body);
      const interaction = await service.run(prepared, options.json ? undefined : printer(io));
      if (options.json) io.stdout(JSON.stringify(interaction, null, 2) + '\n');
      return statusOf(interaction);
    } finally {
      // One-shot: the environment goes with the command.
      await service.close();
    }
  });
}

/**
 * `hookbox run REQUEST.json`: one interaction, from the same request body as
 * `POST /v1beta/interactions`, against a local controller or (with `--url`) a server. Prints a
 * transcript (each call, each hook outcome with reason and duration, each result) or, with
 * `--json`, the Interaction. Exit 0 when it completed (a blocked call is a job done), 2 for a bad
 * request, 1 when the interaction or the runtime failed.
 */
export async function runCommand(
  file: string,
  options: RunCommandOptions,
  io: CliIo,
): Promise<number> {
  const body = readRequest(file);
  if (options.url === undefined) {
    if (options.apiKey !== undefined) {
      throw new UserError(
        'invalid_argument',
        '--api-key: only with --url (a local run needs no key)',
        {
          details: { field: '--api-key' },
        },
      );
    }
    parseInteractionRequest(body); // bad input fails before any engine work
    return runLocal(body, options, io);
  }
  return runRemote(body, options, io);
}
