/**
 * The wire shapes of the Interactions API (docs/contract.md §9), as zod schemas: the request the server validates
 * at its trust boundary, the Interaction it answers with, its steps, environments and errors. The
 * OpenAPI document and the TypeScript client's types come from these same schemas.
 *
 * This module depends on zod only, so the client can import it without the server.
 */
export * from './request-schema.js';
export * from './step-schema.js';
export * from './interaction-schema.js';
export * from './event-schema.js';
export * from './environment-schema.js';
export * from './error-schema.js';
