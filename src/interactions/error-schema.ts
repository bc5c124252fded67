/** The error body of every 4xx and 5xx answer. Depends on zod only. */
import { z } from 'zod';

export const errorBodySchema = z
  .object({
    error: z.object({
      code: z
        .string()
        .describe(
          'hookbox error code: `invalid_argument`, `invalid_sources`, `not_found`, `unauthenticated`, …',
        ),
      message: z.string().describe('What is wrong; starts with the field at fault.'),
      status: z.number().int().describe('The HTTP status.'),
      details: z
        .object({ field: z.string().optional() })
        .catchall(z.unknown())
        .describe('`field`: the JSON path (or header) at fault.'),
    }),
  })
  .describe('Every 4xx and 5xx answer.');

export type ErrorBody = z.output<typeof errorBodySchema>;
