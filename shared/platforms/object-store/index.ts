/** ObjectStore: an access-grants location in the cloud account; no SQL, no automatic setup. */
import * as z from 'zod/mini';
import { addIssue, configPayload, definePlatform, EVEN_WITH_OTHER_ISSUES } from '../module';
import { ObjectStoreConfigSchema } from './schema';

const ObjectStorePayloadSchema = configPayload('ObjectStore', ObjectStoreConfigSchema).check(
  z.superRefine((p, ctx) => {
    if (p.autoBootstrap === true) addIssue(ctx, ['autoBootstrap'], 'must be false for ObjectStore');
  }, EVEN_WITH_OTHER_ISSUES),
);
export type ObjectStorePayload = z.output<typeof ObjectStorePayloadSchema>;

export const objectStore = definePlatform<ObjectStorePayload>()({
  type: 'ObjectStore',
  payloadSchema: ObjectStorePayloadSchema,
  secretPaths: ['cloudAccessKeyId', 'cloudSecretAccessKey'],
  settings: ['name', 'cloudLocationRole', 'cloudLocationPath', 'cloudRoleToAssume', 'authenticationType'],
  nonEditable: ['name', 'cloudLocationPath'],
  listedAs: { host: 'cloudLocationPath', name: 'name' },
  identityAttributes: ['config.name', 'config.cloudLocationPath'],
  supportsAutoBootstrap: false,
  updatable: false,
  /** Name and location path are each unique. */
  claims: ({ config }) => [
    { claim: `objectstore-name#${config.name}`, describe: `name ${config.name}` },
    {
      claim: `objectstore-path#${config.cloudLocationPath}`,
      describe: `location ${config.cloudLocationPath}`,
    },
  ],
  dataSources: { location: ({ config }) => config.cloudLocationPath },
  remote: {
    connector: 'own',
    host: ({ config }) => `${config.cloudAccountId}.${config.cloudRegion}`,
  },
});
