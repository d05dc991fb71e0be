/** DatasetWarehouse in the sandbox: the metadata dataset kept in the project's state. */
import { hostOf } from '..';
import { type PlatformConnector, PlatformOperationError, type PlatformPayload } from '../port';
import { connectionTest, failsBootstrap } from '../sandbox/checks';
import { readState, withState } from '../sandbox/store';
import { failed, passed, skipped, TEST } from '../validation-tests';
import { type DatasetWarehouseConfig, parseServiceAccount } from './schema';

type DatasetConfig = DatasetWarehouseConfig;

function datasetCredentials(config: DatasetConfig): unknown {
  return { credential: config.credential, parsed: parseServiceAccount(config.credential) };
}

/** The sandbox connector (the folder convention's `connector`). */
export const connector: PlatformConnector = {
  type: 'DatasetWarehouse',
  async validate(request) {
    const payload = request.payload as Extract<PlatformPayload, { type: 'DatasetWarehouse' }>;
    const project = hostOf(payload);
    if (request.operation === 'delete')
      return [skipped(TEST.basicConnection, 'nothing to check for a removal')];
    const basic = connectionTest(
      `bigquery.${project}`,
      payload.config.port,
      datasetCredentials(payload.config),
    );
    if (basic.status === 'failed')
      return [basic, skipped(TEST.datasetAccess, 'skipped: the connection test failed')];
    const existing = readState('DatasetWarehouse', project).objects[`dataset:${payload.config.dataset}`];
    const location = existing?.attrs.location;
    return [
      basic,
      existing && location !== payload.config.location
        ? failed(
            TEST.datasetAccess,
            `dataset ${payload.config.dataset} already exists in location ${String(location)}; the location cannot change`,
          )
        : passed(TEST.datasetAccess),
    ];
  },
  async bootstrap(request) {
    const payload = request.payload as Extract<PlatformPayload, { type: 'DatasetWarehouse' }>;
    if (failsBootstrap(datasetCredentials(payload.config)))
      throw new PlatformOperationError('the platform failed while provisioning the metadata dataset');
    await withState('DatasetWarehouse', hostOf(payload), (state) => {
      const key = `dataset:${payload.config.dataset}`;
      state.objects[key] ??= {
        kind: 'dataset',
        name: payload.config.dataset,
        attrs: { location: payload.config.location },
      };
    });
  },
  async applyEdit(request) {
    if (
      failsBootstrap(
        datasetCredentials(
          (request.payload as Extract<PlatformPayload, { type: 'DatasetWarehouse' }>).config,
        ),
      )
    )
      throw new PlatformOperationError('the platform failed while applying the edit');
  },
  async teardown(request) {
    const payload = request.payload as Extract<PlatformPayload, { type: 'DatasetWarehouse' }>;
    await withState('DatasetWarehouse', hostOf(payload), (state) => {
      delete state.objects[`dataset:${payload.config.dataset}`];
    });
  },
};
