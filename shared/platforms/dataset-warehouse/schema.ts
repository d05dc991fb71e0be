import * as z from 'zod';
import { identifier, port, secret, text } from '../fields';

/** The fields of a service-account JSON key file the service relies on. */
export const ServiceAccountKeySchema = z.looseObject({
  type: z.literal('service_account'),
  project_id: z.string().min(1).max(255),
  client_email: z.string().min(3).max(320),
  private_key: z.string().min(1),
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
  role: text(255).describe('cloud role used to connect'),
  datasetSuffix: identifier(64)
    .regex(/^_[A-Za-z0-9_]*$/, 'must start with an underscore (letters, digits, underscores)')
    .describe(
      'suffix appended to the name of each dataset that holds secure views; starts with an underscore',
    ),
  dataset: identifier(1024)
    .regex(/^[A-Za-z0-9_]+$/, 'only letters, digits and underscores')
    .default('service')
    .describe("dataset provisioned for the service's metadata"),
  location: text(64).describe(
    'location of the datasets, such as US or europe-west1; cannot change once the dataset exists',
  ),
  credential: secret(16_384)
    .refine((c) => parseServiceAccount(c) !== undefined, {
      message:
        'must be the content of a service-account JSON key file (type, project_id, client_email, private_key)',
    })
    .describe('content of the service-account JSON key file (write-only)'),
  port: port(443).describe('TCP port of the API endpoint'),
});
export type DatasetWarehouseConfig = z.infer<typeof DatasetWarehouseConfigSchema>;
