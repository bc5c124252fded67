// The TS client's snapshot and fork methods (docs/environments.md, "Snapshots and forks").
import type { z } from 'zod';
import {
  forkAnswerSchema,
  snapshotInfoSchema,
  snapshotListSchema,
  type SnapshotInfo,
} from '../snapshots/snapshot-schema.js';

/** One checked request of the client: the answer parsed by `schema`. */
export type ClientRequest = <S extends z.ZodType>(
  schema: S,
  method: string,
  path: string,
) => Promise<z.output<S>>;

const environmentPath = (id: string) => `/v1beta/environments/${encodeURIComponent(id)}`;

export function snapshotMethods(
  request: ClientRequest,
  send: (method: string, path: string) => Promise<unknown>,
) {
  return {
    /** Takes a snapshot of an environment's workspace and gates, between its calls. */
    create: (environmentId: string): Promise<SnapshotInfo> =>
      request(snapshotInfoSchema, 'POST', `${environmentPath(environmentId)}/snapshots`),
    list: (): Promise<{ snapshots: SnapshotInfo[] }> =>
      request(snapshotListSchema, 'GET', '/v1beta/snapshots'),
    get: (id: string): Promise<SnapshotInfo> =>
      request(snapshotInfoSchema, 'GET', `/v1beta/snapshots/${encodeURIComponent(id)}`),
    delete: async (id: string): Promise<void> => {
      await send('DELETE', `/v1beta/snapshots/${encodeURIComponent(id)}`);
    },
    /** `count` (1..10) new environments, each with a copy of this one's workspace and its gates. */
    fork: (
      environmentId: string,
      count = 1,
    ): Promise<{ environments: { environment_id: string }[] }> =>
      request(forkAnswerSchema, 'POST', `${environmentPath(environmentId)}/fork?count=${count}`),
  };
}
