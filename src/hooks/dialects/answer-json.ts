import { rawAnswerOf } from '../decision.js';

/** Helpers the dialects share to read an answer (docs/agent-dialects.md, one section per agent). */

export type Json = Record<string, unknown>;

/** stdout as one JSON object, or undefined. */
export function jsonObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A non-empty string, or undefined. */
export const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** An object, or undefined. */
export const object = (value: unknown): Json | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : undefined;

/** The answer as the record keeps it. */
export function raw(answer: string): { rawAnswer?: string } {
  const kept = rawAnswerOf(answer);
  return kept === undefined ? {} : { rawAnswer: kept };
}
