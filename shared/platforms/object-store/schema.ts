import * as z from 'zod';
import { port, secret, text } from '../fields';

const base = {
  name: text(255).describe('a name for this connection; unique across ObjectStore integrations'),
  cloudAccountId: z
    .string()
    .regex(/^\d{12}$/, 'must be a 12-digit cloud account id')
    .describe('the 12-digit cloud account id that owns the storage'),
  cloudRegion: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be a cloud region such as us-east-1')
    .describe('the cloud region of the storage, such as us-east-1'),
  cloudLocationRole: text(2048).describe(
    'ARN of the role assigned to the base access-grants location: the grants layer assumes it to vend scoped credentials, so it needs full access to every path under the location prefix',
  ),
  cloudLocationPath: text(2048).describe(
    'the base s3:// location prefix (bucket or prefix) data sources are registered under; unique across ObjectStore integrations',
  ),
  cloudRoleToAssume: text(2048)
    .optional()
    .describe('ARN of a role the service assumes before it works with the cloud (optional)'),
  port: port(443).describe('TCP port of the storage endpoint'),
};

export const ObjectStoreConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, authenticationType: z.literal('auto') }),
  z.strictObject({
    ...base,
    authenticationType: z.literal('accessKey'),
    cloudAccessKeyId: text(128).describe('access key id of the cloud identity the service uses'),
    cloudSecretAccessKey: secret(1024).describe('secret access key of that identity (write-only)'),
  }),
]);
