/** ObjectStore: an access-grants location in the cloud account; no SQL, no automatic setup. */
import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { addIssue, configPayload, definePlatform, EVEN_WITH_OTHER_ISSUES } from '../module';
import { objectStoreSchemas } from './schema';

const objectStorePayloadSchema = lazySchema(() =>
  configPayload('ObjectStore', objectStoreSchemas().config).check(
    z.superRefine((p, ctx) => {
      if (p.autoBootstrap === true) addIssue(ctx, ['autoBootstrap'], 'must be false for ObjectStore');
    }, EVEN_WITH_OTHER_ISSUES),
  ),
);
export type ObjectStorePayload = z.output<ReturnType<typeof objectStorePayloadSchema>>;

export const objectStore = definePlatform<ObjectStorePayload>()({
  type: 'ObjectStore',
  get payloadSchema() {
    return objectStorePayloadSchema();
  },
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
