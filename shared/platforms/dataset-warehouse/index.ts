/** DatasetWarehouse (BigQuery-like): a metadata dataset in the service account's project. */
import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { addIssue, configPayload, definePlatform, EVEN_WITH_OTHER_ISSUES } from '../module';
import { datasetWarehouseSchemas, parseServiceAccount } from './schema';

const datasetWarehousePayloadSchema = lazySchema(() =>
  configPayload('DatasetWarehouse', datasetWarehouseSchemas().config).check(
    z.superRefine((p, ctx) => {
      if (p.autoBootstrap === true) addIssue(ctx, ['autoBootstrap'], 'must be false for DatasetWarehouse');
    }, EVEN_WITH_OTHER_ISSUES),
  ),
);
export type DatasetWarehousePayload = z.output<ReturnType<typeof datasetWarehousePayloadSchema>>;

/** The project of the service-account credential: the type's host identity. */
const project = (p: DatasetWarehousePayload) =>
  parseServiceAccount(p.config.credential)?.project_id ?? 'unknown-project';

export const datasetWarehouse = definePlatform<DatasetWarehousePayload>()({
  type: 'DatasetWarehouse',
  get payloadSchema() {
    return datasetWarehousePayloadSchema();
  },
  secretPaths: ['credential'],
  settings: ['role', 'datasetSuffix', 'dataset', 'location'],
  nonEditable: ['dataset', 'location'],
  listedAs: { name: 'dataset' },
  identityAttributes: ['config.credential (its project_id)'],
  supportsAutoBootstrap: false,
  updatable: true,
  claims: (p) => [{ claim: `project#${project(p)}`, describe: `project ${project(p)}` }],
  remote: {
    connector: 'own',
    host: project,
  },
});
