import * as z from 'zod';
import { port, secret, text } from '../fields';

const base = {
  name: text(255),
  cloudAccountId: z.string().regex(/^\d{12}$/, 'must be a 12-digit cloud account id'),
  cloudRegion: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'must be a cloud region such as us-east-1'),
  cloudLocationRole: text(2048),
  cloudLocationPath: text(2048),
  cloudRoleToAssume: text(2048).optional(),
  port: port(443),
};

export const ObjectStoreConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, authenticationType: z.literal('auto') }),
  z.strictObject({
    ...base,
    authenticationType: z.literal('accessKey'),
    cloudAccessKeyId: text(128),
    cloudSecretAccessKey: secret(1024),
  }),
]);
