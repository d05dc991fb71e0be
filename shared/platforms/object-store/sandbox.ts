/**
 * ObjectStore in the sandbox: the access-grants location kept in the account's state, and the
 * account's buckets and objects (`sandbox s3 put|rm`, ADR 0016) that data-source paths are
 * located in.
 */
import { hostOf } from '..';
import { locateEach } from '../locate';
import { type PlatformConnector, PlatformOperationError, type PlatformPayload } from '../port';
import { connectionTest, failsBootstrap } from '../sandbox/checks';
import { readState, withState } from '../sandbox/store';
import { passed, skipped, TEST } from '../validation-tests';
import { locateIn, putObject, removeObjects } from './paths';

type ObjectStorePayload = Extract<PlatformPayload, { type: 'ObjectStore' }>;
const locationKey = (p: ObjectStorePayload) => `location:${p.config.cloudLocationPath}`;
const endpointOf = (p: ObjectStorePayload) => `s3-control.${p.config.cloudRegion}.sandbox`;

/** The sandbox connector (the folder convention's `connector`). */
export const connector: PlatformConnector = {
  type: 'ObjectStore',
  async validate(request) {
    const payload = request.payload as ObjectStorePayload;
    if (request.operation === 'delete')
      return [skipped(TEST.basicConnection, 'nothing to check for a removal')];
    const basic = connectionTest(endpointOf(payload), payload.config.port, payload.config);
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
    await withState('ObjectStore', hostOf(payload), (state) => {
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
  async locate(request) {
    const payload = request.payload as ObjectStorePayload;
    const basic = connectionTest(endpointOf(payload), payload.config.port, payload.config);
    const state = readState('ObjectStore', hostOf(payload));
    return locateEach(request.paths, async (path) =>
      basic.status === 'failed' || state.outage
        ? { path, error: `could not check ${path}: ${basic.message ?? 'the storage is unreachable'}` }
        : { path, found: locateIn(state, path) },
    );
  },
  async teardown(request) {
    const payload = request.payload as ObjectStorePayload;
    await withState('ObjectStore', hostOf(payload), (state) => {
      delete state.objects[locationKey(payload)];
    });
  },
};

/**
 * The sandbox's buckets and objects for `sandbox s3 put|rm` (the folder convention's `objects`,
 * loaded by `shared/platforms/sandbox/objects.ts`): the state of the account and region.
 */
export const objects = {
  async put(where: { account: string; region: string }, path: string): Promise<void> {
    await withState('ObjectStore', `${where.account}.${where.region}`, (state) => putObject(state, path));
  },
  async remove(where: { account: string; region: string }, path: string): Promise<number> {
    return withState('ObjectStore', `${where.account}.${where.region}`, (state) =>
      removeObjects(state, path),
    );
  },
};
