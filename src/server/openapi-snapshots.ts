// The snapshot and fork endpoints of the OpenAPI document (docs/environments.md, "Snapshots and forks").
import { SNAPSHOT_DEFAULTS } from '../snapshots/snapshot-options.js';

const REF = (id: string) => `#/components/schemas/${id}`;
const json = (id: string) => ({ 'application/json': { schema: { $ref: REF(id) } } });

const errors = {
  '400': { description: 'Bad request: the message names the field', content: json('Error') },
  '401': { description: 'Missing or wrong API key', content: json('Error') },
  '404': {
    description: "Unknown or expired id, or another tenant's (the same answer)",
    content: json('Error'),
  },
  '409': {
    description: 'The snapshot is being restored (delete), or cannot be restored any more',
    content: json('Error'),
  },
  '429': {
    description: 'Past a quota: `environments` (fork copies count as environments) or `snapshots`',
    content: json('Error'),
  },
  '5XX': {
    description: 'hookbox or the engine failed (or the engine has no snapshots: Kubernetes)',
    content: json('Error'),
  },
};

const id = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

export const SNAPSHOT_PATHS: Record<string, unknown> = {
  '/v1beta/environments/{id}/snapshots': {
    post: {
      summary:
        'Take a snapshot of the workspace and gates (between calls); a new environment from it: `environment: {"type": "remote", "snapshot_id": …}`',
      parameters: [id],
      responses: { '201': { description: 'Taken', content: json('Snapshot') }, ...errors },
    },
  },
  '/v1beta/environments/{id}/fork': {
    post: {
      summary: `Make count new environments, each with a copy of the workspace and the same gates`,
      parameters: [
        id,
        {
          name: 'count',
          in: 'query',
          schema: {
            type: 'integer',
            minimum: 1,
            maximum: SNAPSHOT_DEFAULTS.maxForkCount,
            default: 1,
          },
        },
      ],
      responses: { '201': { description: 'Made', content: json('ForkAnswer') }, ...errors },
    },
  },
  '/v1beta/snapshots': {
    get: {
      summary: 'The snapshots the caller may see',
      responses: { '200': { description: 'Listed', content: json('SnapshotList') }, ...errors },
    },
  },
  '/v1beta/snapshots/{id}': {
    get: {
      summary: 'One snapshot',
      parameters: [id],
      responses: { '200': { description: 'Found', content: json('Snapshot') }, ...errors },
    },
    delete: {
      summary: 'Delete a snapshot (its volume is removed)',
      parameters: [id],
      responses: { '200': { description: 'Deleted: `{}`' }, ...errors },
    },
  },
};
