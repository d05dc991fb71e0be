/**
 * FederatedSql: created with `type` only; the cluster's access-control plugin authenticates with
 * an API key the service issues (shared/integrations/api/cluster-key.ts). No remote objects.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { definePlatform } from '../module';

const federatedSqlPayloadSchema = lazySchema(() => z.strictObject({ type: z.literal('FederatedSql') }));
export type FederatedSqlPayload = z.output<ReturnType<typeof federatedSqlPayloadSchema>>;

export const federatedSql = definePlatform<FederatedSqlPayload>()({
  type: 'FederatedSql',
  get payloadSchema() {
    return federatedSqlPayloadSchema();
  },
  secretPaths: [],
  settings: [],
  nonEditable: [],
  identityAttributes: [],
  supportsAutoBootstrap: false,
  updatable: false,
  issuesApiKey: true,
  /** One per service. */
  claims: () => [{ claim: 'federatedsql', describe: 'the FederatedSql integration' }],
});
