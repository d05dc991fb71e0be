import * as z from 'zod/mini';
import { described } from '../../schema-meta';
import { identifier, port, secret, text } from '../fields';

/** The fields of a service-account JSON key file the service relies on. */
export const ServiceAccountKeySchema = z.looseObject({
  type: z.literal('service_account'),
  project_id: z.string().check(z.minLength(1), z.maxLength(255)),
  client_email: z.string().check(z.minLength(3), z.maxLength(320)),
  private_key: z.string().check(z.minLength(1)),
});

export function parseServiceAccount(credential: string): z.infer<typeof ServiceAccountKeySchema> | undefined {
  try {
    const parsed = ServiceAccountKeySchema.safeParse(JSON.parse(credential));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const DatasetWarehouseConfigSchema = z.strictObject({
  role: described(text(255), 'cloud role used to connect'),
  datasetSuffix: described(
    identifier(64).check(
      z.regex(/^_[A-Za-z0-9_]*$/, 'must start with an underscore (letters, digits, underscores)'),
    ),
    'suffix appended to the name of each dataset that holds secure views; starts with an underscore',
  ),
  dataset: described(
    z._default(
      identifier(1024).check(z.regex(/^[A-Za-z0-9_]+$/, 'only letters, digits and underscores')),
      'service',
    ),
    "dataset provisioned for the service's metadata",
  ),
  location: described(
    text(64),
    'location of the datasets, such as US or europe-west1; cannot change once the dataset exists',
  ),
  credential: described(
    secret(16_384).check(
      z.refine((c) => parseServiceAccount(c) !== undefined, {
        message:
          'must be the content of a service-account JSON key file (type, project_id, client_email, private_key)',
      }),
    ),
    'content of the service-account JSON key file (write-only)',
  ),
  port: described(port(443), 'TCP port of the API endpoint'),
});
export type DatasetWarehouseConfig = z.infer<typeof DatasetWarehouseConfigSchema>;
