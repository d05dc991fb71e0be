import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { described } from '../../schema-meta';
import { identifier, port, secret, text } from '../fields';

/**
 * The type's schemas, built the first time the type is asked for them (ADR 0021): a function
 * builds the schemas of the types it meets, not of all seven at init.
 */
export const datasetWarehouseSchemas = lazySchema(() => {
  const DatasetWarehouseConfigSchema = z.strictObject({
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
  return { config: DatasetWarehouseConfigSchema };
});
export type DatasetWarehouseConfig = z.infer<ReturnType<typeof datasetWarehouseSchemas>['config']>;

/** The fields of a service-account JSON key file the service relies on. */
const serviceAccountKeySchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('service_account'),
    project_id: z.string().check(z.minLength(1), z.maxLength(255)),
    client_email: z.string().check(z.minLength(3), z.maxLength(320)),
    private_key: z.string().check(z.minLength(1)),
  }),
);

export function parseServiceAccount(
  credential: string,
): z.infer<ReturnType<typeof serviceAccountKeySchema>> | undefined {
  try {
    const parsed = serviceAccountKeySchema().safeParse(JSON.parse(credential));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
