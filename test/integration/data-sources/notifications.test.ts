/**
 * The two halves meet (issue 38, item 3): registering a data source publishes modelCreated and
 * removing one modelDeleted, from the dataSources stream, and webhooks subscribed to those types
 * receive them, payload filters included. On a cloud of its own: the webhooks are global and would
 * receive other files' notices on the tier's cloud.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createKey, untilDone } from '../../support/api';
import { createHooks, onOwnCloud, pipelineMarker } from '../webhooks/helpers';
import { folder, objectStore, registered, type Store, uid } from './helpers';

const own = onOwnCloud();
const TYPES = ['modelCreated', 'modelDeleted'];

interface Delivered {
  text: string;
  metadata: Record<string, unknown>;
}
const bodies = (path: string): Delivered[] =>
  own.receiver.byPath(path).map((r) => JSON.parse(r.body) as Delivered);

let os: Store;
let admin: { userId: number; apiKey: string };

beforeAll(async () => {
  admin = await createKey(`ds-notices-${uid()}`, true);
  os = await objectStore();
  await createHooks(admin.apiKey, [
    {
      name: 'every data source',
      url: own.receiver.url('/all'),
      global: true,
      notificationType: TYPES,
      actionType: 'triggered',
    },
    {
      name: 'kept ones',
      url: own.receiver.url('/kept'),
      global: true,
      notificationType: TYPES,
      actionType: 'triggered',
      filter: 'has(metadata.dataSourceName) && metadata.dataSourceName.startsWith("keep")',
    },
  ]);
});

describe('data-source notifications', () => {
  it('reach subscribed webhooks with the data source and the caller; filters apply', async () => {
    const keep = `keep-${uid()}`;
    const drop = `drop-${uid()}`;
    // First a name the local queue refuses (an emoji, which AWS takes): its notice is skipped,
    // logged, and the stream goes on to the next ones instead of stopping at it.
    await registered(os, `refused-📈-${uid()}`, await folder(os));
    const dropId = await registered(os, drop, await folder(os));
    const keepPrefix = await folder(os);
    const created = await call('POST', '/data-sources', {
      key: admin.apiKey,
      body: {
        type: 'ObjectStore',
        integrationId: os.id,
        dataSources: [{ dataSourceName: keep, prefix: keepPrefix }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const keepId = created.body.dataSources[0].dataSourceId as number;
    expect((await call('DELETE', `/data-sources/${keepId}`, { key: admin.apiKey })).status).toBe(200);

    await untilDone(
      async () => bodies('/all').length,
      (n) => n >= 3,
      { what: 'the three notices at the unfiltered webhook' },
    );
    const all = bodies('/all');
    const created1 = all.find((b) => b.metadata.modelId === keepId && /registered/.test(b.text));
    const deleted1 = all.find((b) => b.metadata.modelId === keepId && /removed/.test(b.text));
    expect(created1?.metadata).toMatchObject({
      modelType: 'datasource',
      modelId: keepId,
      actionBy: admin.userId,
      actionByName: expect.stringMatching(/^ds-notices-/),
      integrationId: os.id,
      dataSourceName: keep,
      prefix: keepPrefix,
    });
    expect(created1?.text).toBe(
      `Data source ${keepId} "${keep}" (${keepPrefix}) was registered under integration ${os.id} by ${created1?.metadata.actionByName}.`,
    );
    expect(deleted1?.metadata).toMatchObject({
      modelType: 'datasource',
      modelId: keepId,
      actionBy: admin.userId,
    });
    expect(all.some((b) => b.metadata.modelId === dropId)).toBe(true);
    // Each notice once (a notice has its own id: a replayed stream batch is one notification).
    expect(all.filter((b) => b.metadata.modelId === keepId)).toHaveLength(2);

    // The filtered webhook: both of `keep`, none of `drop` (checked after a marker through the pipeline).
    await untilDone(
      async () => bodies('/kept').length,
      (n) => n >= 2,
      { what: 'the two notices at the filtered webhook' },
    );
    await pipelineMarker(own.receiver, admin);
    expect(bodies('/kept').map((b) => b.metadata.modelId)).toEqual([keepId, keepId]);
  });
});
