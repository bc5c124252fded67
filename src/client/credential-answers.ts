import { z } from 'zod';

/** A stored credential as the API shows it (docs/credentials.md): never its value. */
export const credentialSchema = z.object({
  id: z.string(),
  object: z.literal('credential'),
  name: z.string(),
  created: z.string(),
  header_names: z.array(z.string()),
  has_value: z.boolean(),
  tenant: z.string().nullable(),
});

export const credentialListSchema = z.object({ credentials: z.array(credentialSchema) });

export type Credential = z.output<typeof credentialSchema>;

/** What `POST /v1beta/credentials` takes: `value`, `headers` (templates, `{{value}}`) or both. */
export interface CredentialRequest {
  name: string;
  value?: string;
  headers?: Record<string, string>;
}
