/** ObjectStore in the sandbox: the access-grants location kept in the account's state. */
import { hostOf } from '..';
import { type PlatformConnector, PlatformOperationError, type PlatformPayload } from '../port';
import { connectionTest, failsBootstrap } from '../sandbox/checks';
import { withState } from '../sandbox/store';
import { passed, skipped, TEST } from '../validation-tests';

type ObjectStorePayload = Extract<PlatformPayload, { type: 'ObjectStore' }>;
const locationKey = (p: ObjectStorePayload) => `location:${p.config.cloudLocationPath}`;

/** The sandbox connector (the folder convention's `connector`). */
export const connector: PlatformConnector = {
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
  async teardown(request) {
    const payload = request.payload as ObjectStorePayload;
    await withState('ObjectStore', hostOf(payload), (state) => {
      delete state.objects[locationKey(payload)];
    });
  },
};
