/**
 * Sandbox connectors for all six remote types. SQL types use the shared SQL connector over the
 * sandbox driver; DatasetWarehouse and ObjectStore keep their few remote facts (the metadata
 * dataset, the access-grants registration) in the same per-host state.
 *
 * Triggers (documented in docs/platforms.md):
 * - host or workspace hostname ending in `.unreachable.example` → Basic Connection Test fails;
 * - any credential value `invalid-credentials` → Basic Connection Test fails (authentication);
 * - any credential value `fail-bootstrap` → bootstrap / applyEdit fail half-way;
 * - privileged delete credentials with password or secret `fail-teardown` → teardown fails half-way.
 */

import type { ConfigOf } from '../../integrations/schemas';
import { parseServiceAccount } from '../../integrations/schemas/dataset-warehouse';
import { lakehouseHost } from '../../integrations/schemas/lakehouse';
import { describeFailure } from '../driver';
import {
  type PlatformConnector,
  PlatformOperationError,
  type PlatformPayload,
  type ValidationTest,
} from '../port';
import type { SqlType } from '../scripts';
import { sqlConnector } from '../sql-connector';
import { failed, passed, skipped, TEST } from '../validation-tests';
import { credentialValues, isUnreachable, sandboxDriver, TRIGGER } from './driver';
import { readState, withState } from './store';

export type RemoteType = PlatformPayload['type'];

function sqlSandbox(type: SqlType): PlatformConnector {
  return sqlConnector(type, sandboxDriver(type), {
    failAfter(operation, target, total) {
      // Teardown connects with the privileged delete credentials, bootstrap/edit with the config's.
      const trigger = operation === 'teardown' ? TRIGGER.failTeardown : TRIGGER.failBootstrap;
      return credentialValues(target.credentials).includes(trigger) ? Math.floor(total / 2) : undefined;
    },
  });
}
/** The host identity of a payload in the sandbox (one state file per host). */
export function sandboxHost(payload: PlatformPayload): string {
  switch (payload.type) {
    case 'Lakehouse':
      return lakehouseHost(payload.config);
    case 'DatasetWarehouse':
      return parseServiceAccount(payload.config.credential)?.project_id ?? 'unknown-project';
    case 'ObjectStore':
      return `${payload.config.cloudAccountId}.${payload.config.cloudRegion}`;
    default:
      return payload.config.host;
  }
}

function connectionTest(
  host: string,
  port: number,
  credentials: unknown,
  name = TEST.basicConnection,
): ValidationTest {
  if (isUnreachable(host)) return failed(name, describeFailure('unreachable', host, port));
  if (credentialValues(credentials).includes(TRIGGER.invalidCredentials))
    return failed(name, describeFailure('authentication', host, port));
  return passed(name);
}

function failsBootstrap(credentials: unknown): boolean {
  return credentialValues(credentials).includes(TRIGGER.failBootstrap);
}

type DatasetConfig = ConfigOf<'DatasetWarehouse'>;

function datasetCredentials(config: DatasetConfig): unknown {
  return { credential: config.credential, parsed: parseServiceAccount(config.credential) };
}

const datasetWarehouse: PlatformConnector = {
  type: 'DatasetWarehouse',
  async validate(request) {
    const payload = request.payload as Extract<PlatformPayload, { type: 'DatasetWarehouse' }>;
    const project = sandboxHost(payload);
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
    await withState('DatasetWarehouse', sandboxHost(payload), (state) => {
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
    await withState('DatasetWarehouse', sandboxHost(payload), (state) => {
      delete state.objects[`dataset:${payload.config.dataset}`];
    });
  },
};

type ObjectStorePayload = Extract<PlatformPayload, { type: 'ObjectStore' }>;
const locationKey = (p: ObjectStorePayload) => `location:${p.config.cloudLocationPath}`;

const objectStore: PlatformConnector = {
  type: 'ObjectStore',
  async validate(request) {
    const payload = request.payload as ObjectStorePayload;
    if (request.operation === 'delete')
      return [skipped(TEST.basicConnection, 'nothing to check for a removal')];
    const host = `s3-control.${payload.config.cloudRegion}.sandbox`;
    const basic = connectionTest(host, payload.config.port, payload.config);
    return [
      basic,
      basic.status === 'failed'
        ? skipped(TEST.accessGrantsLocation, 'skipped: the connection test failed')
        : passed(TEST.accessGrantsLocation),
    ];
  },
  async bootstrap(request) {
    const payload = request.payload as ObjectStorePayload;
    if (failsBootstrap(payload.config))
      throw new PlatformOperationError('the platform failed while registering the access-grants location');
    await withState('ObjectStore', sandboxHost(payload), (state) => {
      state.objects[locationKey(payload)] ??= {
        kind: 'location',
        name: payload.config.cloudLocationPath,
        attrs: { role: payload.config.cloudLocationRole },
      };
    });
  },
  async applyEdit(request) {
    const payload = request.payload as ObjectStorePayload;
    if (failsBootstrap(payload.config))
      throw new PlatformOperationError('the platform failed while applying the edit');
  },
  async teardown(request) {
    const payload = request.payload as ObjectStorePayload;
    await withState('ObjectStore', sandboxHost(payload), (state) => {
      delete state.objects[locationKey(payload)];
    });
  },
};

export function sandboxConnector(type: RemoteType): PlatformConnector {
  if (type === 'DatasetWarehouse') return datasetWarehouse;
  if (type === 'ObjectStore') return objectStore;
  return sqlSandbox(type);
}
