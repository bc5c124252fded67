import { z } from 'zod';

/** A whole number of at least 0 (sizes, counts, milliseconds). */
export const count = z.number().int().min(0);
/** A whole number of at least 1. */
export const positive = z.number().int().min(1);
/**
 * Bytes of any kind, base64-encoded: JSON inside a JSON string would double its escaping. Not
 * checked character by character here (the agent decodes with validation): answers may be
 * megabytes.
 */
export const base64 = z.string().meta({ contentEncoding: 'base64' });
/** Environment variables, name to value. */
export const variables = z.record(z.string(), z.string());
/** The languages tool code runs in (docs/contract.md §5, code_execution). */
export const codeLanguage = z.enum(['bash', 'python', 'sh']);
/** What an entry of a folder is, as the agent sees it with lstat. */
export const entryType = z.enum(['file', 'directory', 'symlink', 'other']);
/** An entry of a folder's listing. */
export const folderEntry = z.strictObject({ name: z.string(), type: entryType, size: count });

/** What every process the agent runs ends with: the process's exit, output and how long it took. */
export const processEnd = {
  /** 128 + the signal's number when a signal ended it. */
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  /** Killed, with its process group, at the request's `timeout_ms`. */
  timed_out: z.boolean(),
  /** Output past `output_cap_bytes` was dropped. */
  truncated: z.boolean(),
  duration_ms: z.number().min(0),
};

/** An operation of the protocol: what the controller sends and what the agent answers. */
export interface Operation<
  Request extends z.ZodType = z.ZodType,
  Answer extends z.ZodType = z.ZodType,
> {
  /** One sentence for docs/agent-protocol.md and the JSON Schema's `description`. */
  description: string;
  request: Request;
  answer: Answer;
}

export function operation<Request extends z.ZodType, Answer extends z.ZodType>(
  description: string,
  request: Request,
  answer: Answer,
): Operation<Request, Answer> {
  return { description, request, answer };
}
