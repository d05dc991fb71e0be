import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { described } from '../../schema-meta';
import { port, secret, text } from '../fields';

/**
 * The type's schemas, built the first time the type is asked for them (ADR 0021): a function
 * builds the schemas of the types it meets, not of all seven at init.
 */
export const objectStoreSchemas = lazySchema(() => {
  const base = {
    name: described(text(255), 'a name for this connection; unique across ObjectStore integrations'),
    cloudAccountId: described(
      z.string().check(z.regex(/^\d{12}$/, 'must be a 12-digit cloud account id')),
      'the 12-digit cloud account id that owns the storage',
    ),
    cloudRegion: described(
      z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be a cloud region such as us-east-1')),
      'the cloud region of the storage, such as us-east-1',
    ),
    cloudLocationRole: described(
      text(2048),
      'ARN of the role assigned to the base access-grants location: the grants layer assumes it to vend scoped credentials, so it needs full access to every path under the location prefix',
    ),
    cloudLocationPath: described(
      text(2048),
      'the base s3:// location prefix (bucket or prefix) data sources are registered under; unique across ObjectStore integrations',
    ),
    cloudRoleToAssume: described(
      z.optional(text(2048)),
      'ARN of a role the service assumes before it works with the cloud (optional)',
    ),
    port: described(port(443), 'TCP port of the storage endpoint'),
  };

  const ObjectStoreConfigSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject({ ...base, authenticationType: z.literal('auto') }),
    z.strictObject({
      ...base,
      authenticationType: z.literal('accessKey'),
      cloudAccessKeyId: described(text(128), 'access key id of the cloud identity the service uses'),
      cloudSecretAccessKey: described(secret(1024), 'secret access key of that identity (write-only)'),
    }),
  ]);
  return { config: ObjectStoreConfigSchema };
});
