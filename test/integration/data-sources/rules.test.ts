/**
 * Every rule of POST/GET/DELETE /data-sources (issue 38, ADR 0016) through the local cloud: the
 * integration's rules for the whole request, path rules as a 400 naming `dataSources[i].prefix`,
 * per-entry refusals (missing in the remote, name or prefix already registered, not checkable),
 * races, and the integration DELETE's 409 and forceDisable.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { call, createKey } from '../../support/api';
import { store as integrationStore, settle } from '../integrations/helpers';
import { folder, objectStore, put, register, registered, type Store, uid } from './helpers';

let os: Store;

beforeAll(async () => {
  os = await objectStore();
  await put(os, `s3://${os.bucket}/outside/x.csv`);
});

describe('registering', () => {
  it('registers several entries at once (JSON or YAML), each with its id; GET shows them', async () => {
    const name = `sales-${uid()}`;
    const sales = await folder(os);
    const file = `${await folder(os)}object.csv`;
    const r = await register(os, [
      { dataSourceName: name, prefix: sales },
      { dataSourceName: `${name}-file`, prefix: file },
    ]);
    expect(r.status, r.text).toBe(201);
    expect(r.body.errors).toEqual([]);
    const [first, second] = r.body.dataSources;
    expect(first).toMatchObject({ dataSourceName: name, prefix: sales, integrationId: os.id });
    expect(second.dataSourceId).toBeGreaterThan(first.dataSourceId);
    const got = await call('GET', `/data-sources/${first.dataSourceId}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(first);

    const hr = (await folder(os)).replace(/\/$/, '');
    const yaml = await call('POST', '/data-sources', {
      raw: stringify({
        type: 'ObjectStore',
        integrationId: os.id,
        dataSources: [{ dataSourceName: `hr-${uid()}`, prefix: hr }],
      }),
      contentType: 'application/yaml',
    });
    expect(yaml.status, yaml.text).toBe(201);
    // A folder named without its slash is found through its objects.
    expect(yaml.body.dataSources[0].prefix).toBe(hr);
  });

  it('lists by integration, paged in id order', async () => {
    const own = await objectStore();
    await put(
      own,
      `s3://${own.bucket}/data/a/1`,
      `s3://${own.bucket}/data/b/1`,
      `s3://${own.bucket}/data/c/1`,
    );
    const ids = [];
    for (const p of ['a', 'b', 'c'])
      ids.push(await registered(own, `${p}-${uid()}`, `s3://${own.bucket}/data/${p}/`));
    const page1 = await call('GET', `/data-sources?integrationId=${own.id}&pageSize=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.dataSources.map((d: { dataSourceId: number }) => d.dataSourceId)).toEqual(
      ids.slice(0, 2),
    );
    const page2 = await call(
      'GET',
      `/data-sources?integrationId=${own.id}&pageSize=2&nextToken=${page1.body.nextToken}`,
    );
    expect(page2.body.dataSources.map((d: { dataSourceId: number }) => d.dataSourceId)).toEqual(ids.slice(2));
    expect(page2.body.nextToken).toBeUndefined();
    const all = await call('GET', '/data-sources?pageSize=100');
    expect(all.status).toBe(200);
    expect((await call('GET', '/data-sources?nextToken=%%%')).status).toBe(400);
  });
});

describe('the integration decides for the whole request', () => {
  it('404 for an unknown integration', async () => {
    const r = await register({ id: 987654321 }, [{ dataSourceName: 'x', prefix: 's3://bucket/x/' }]);
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('integration 987654321 not found');
  });

  it('400 for an integration that is not an ObjectStore', async () => {
    const s = await integrationStore();
    const id = await s.nextId();
    const at = new Date().toISOString();
    await s.put({
      id,
      type: 'CloudWarehouse',
      status: 'enabled',
      version: 1,
      claims: [],
      createdAt: at,
      updatedAt: at,
    });
    const r = await register({ id }, [{ dataSourceName: 'x', prefix: 's3://bucket/x/' }]);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      `integrationId: integration ${id} is a CloudWarehouse; data sources are registered under ObjectStore integrations`,
    );
  });

  it('409 naming the status when it is not enabled', async () => {
    const own = await objectStore();
    await (await integrationStore()).setStatus(own.id, 'recurringValidationError');
    const r = await register(own, [{ dataSourceName: `x-${uid()}`, prefix: `s3://${own.bucket}/data/` }]);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      status: 'recurringValidationError',
      message: `integration ${own.id} is recurringValidationError; data sources can be registered only while it is enabled`,
    });
  });
});

describe('paths and entries: a 400 naming the field, nothing registered', () => {
  it('a prefix that is not an s3:// path, or outside the location', async () => {
    const name = `kept-${uid()}`;
    const r = await register(os, [
      { dataSourceName: name, prefix: await folder(os) },
      { dataSourceName: `a-${uid()}`, prefix: `https://${os.bucket}/data/` },
      { dataSourceName: `b-${uid()}`, prefix: `s3://${os.bucket}/outside/` },
      { dataSourceName: `c-${uid()}`, prefix: `s3://${os.bucket}/database/` },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      [
        'dataSources[1].prefix: must be an s3:// path (s3://bucket/prefix/)',
        `dataSources[2].prefix: s3://${os.bucket}/outside/ is not inside the integration's cloudLocationPath ${os.location}`,
        `dataSources[3].prefix: s3://${os.bucket}/database/ is not inside the integration's cloudLocationPath ${os.location}`,
      ].join('; '),
    );
    const list = await call('GET', `/data-sources?integrationId=${os.id}`);
    expect(list.body.dataSources.some((d: { dataSourceName: string }) => d.dataSourceName === name)).toBe(
      false,
    );
  });

  it('an entry that is not well-formed; the envelope at the edge', async () => {
    const r = await register(os, [
      { dataSourceName: 'ok', prefix: `s3://${os.bucket}/data/` },
      { prefix: 'x' } as never,
    ]);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('dataSources[1].dataSourceName: required');
    const empty = await call('POST', '/data-sources', {
      body: { type: 'ObjectStore', integrationId: os.id, dataSources: [] },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toMatch(/dataSources: must hold at least one data source/);
    const tooMany = await register(
      os,
      Array.from({ length: 51 }, (_, i) => ({
        dataSourceName: `n${i}`,
        prefix: `s3://${os.bucket}/data/${i}/`,
      })),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toMatch(/dataSources: must hold at most 50 data sources/);
  });
});

describe('each entry on its own', () => {
  it('refuses a path missing in the remote, naming the prefix; 422 when none is registered', async () => {
    const r = await register(os, [
      { dataSourceName: `gone-${uid()}`, prefix: `s3://${os.bucket}/data/nothing/` },
    ]);
    expect(r.status).toBe(422);
    expect(r.body.dataSources).toEqual([]);
    expect(r.body.errors).toEqual([
      expect.objectContaining({
        index: 0,
        message: `dataSources[0].prefix: s3://${os.bucket}/data/nothing/ does not exist in the integration's storage (checked with its own connection)`,
      }),
    ]);
  });

  it('refuses a name or prefix already registered, naming the existing id; the rest are registered', async () => {
    const name = `dup-${uid()}`;
    const people = `${await folder(os)}object.csv`;
    const first = await registered(os, name, people);
    const fresh = `fresh-${uid()}`;
    const freshPrefix = await folder(os);
    const r = await register(os, [
      { dataSourceName: name, prefix: await folder(os) },
      { dataSourceName: `other-${uid()}`, prefix: people },
      { dataSourceName: fresh, prefix: freshPrefix },
      { dataSourceName: fresh, prefix: await folder(os) },
    ]);
    expect(r.status, r.text).toBe(201);
    expect(r.body.dataSources.map((d: { dataSourceName: string }) => d.dataSourceName)).toEqual([fresh]);
    const freshId = r.body.dataSources[0].dataSourceId;
    expect(r.body.errors.map((e: { index: number; message: string }) => [e.index, e.message])).toEqual([
      [
        0,
        `dataSources[0].dataSourceName: a data source named "${name}" is already registered (data source ${first})`,
      ],
      [1, `dataSources[1].prefix: ${people} is already registered (data source ${first})`],
      [
        3,
        `dataSources[3].dataSourceName: a data source named "${fresh}" is already registered (data source ${freshId})`,
      ],
    ]);
    // The same prefix with or without its trailing slash.
    const withoutSlash = freshPrefix.replace(/\/$/, '');
    const same = await register(os, [{ dataSourceName: `s-${uid()}`, prefix: withoutSlash }]);
    expect(same.status).toBe(422);
    expect(same.body.errors[0].message).toBe(
      `dataSources[0].prefix: ${withoutSlash} is already registered (data source ${freshId})`,
    );
  });

  it('refuses what cannot be checked (the sandbox credential trigger)', async () => {
    const bad = await objectStore();
    // Credentials that stopped working after the integration was created.
    const s = await integrationStore();
    const item = (await s.get(bad.id)) as Record<string, Record<string, unknown>>;
    const { secretsOf } = await import('../../../shared/integrations/secrets');
    const config = await secretsOf({
      type: 'ObjectStore',
      config: { ...item.config, cloudSecretAccessKey: 'invalid-credentials' },
    }).seal(`integration-${bad.id}`);
    await s.put({ ...item, config });
    const r = await register(bad, [{ dataSourceName: `n-${uid()}`, prefix: `s3://${bad.bucket}/data/` }]);
    expect(r.status).toBe(422);
    expect(r.body.errors[0].message).toMatch(
      /^dataSources\[0\]\.prefix: could not check s3:\/\/.*authentication/,
    );
  });
});

describe('races: nothing half-registered', () => {
  it('two creates of the same name: one wins, the other names its id', async () => {
    const name = `race-${uid()}`;
    const [one, two] = [await folder(os), await folder(os)];
    const [a, b] = await Promise.all([
      register(os, [{ dataSourceName: name, prefix: one }]),
      register(os, [{ dataSourceName: name, prefix: two }]),
    ]);
    const winner = [a, b].find((r) => r.status === 201);
    const loser = [a, b].find((r) => r.status === 422);
    expect(winner, `${a.text} / ${b.text}`).toBeDefined();
    expect(loser, `${a.text} / ${b.text}`).toBeDefined();
    const id = winner?.body.dataSources[0].dataSourceId;
    expect(loser?.body.errors[0].message).toBe(
      `dataSources[0].dataSourceName: a data source named "${name}" is already registered (data source ${id})`,
    );
    const listed = await call('GET', `/data-sources?integrationId=${os.id}`);
    expect(
      listed.body.dataSources.filter((d: { dataSourceName: string }) => d.dataSourceName === name),
    ).toHaveLength(1);
    // The loser's prefix claim was never taken: it registers now.
    const loserPrefix = winner === a ? two : one;
    expect((await register(os, [{ dataSourceName: `${name}-2`, prefix: loserPrefix }])).status).toBe(201);
  });
});

describe('deleting', () => {
  it('answers the deleted data source; then 404; its name and prefix are free again', async () => {
    const name = `del-${uid()}`;
    const prefix = await folder(os);
    const id = await registered(os, name, prefix);
    const gone = await call('DELETE', `/data-sources/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ dataSourceId: id, dataSourceName: name, integrationId: os.id });
    expect((await call('GET', `/data-sources/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/data-sources/${id}`)).status).toBe(404);
    expect(await registered(os, name, prefix)).toBeGreaterThan(id);
  });
});

describe('an integration with data sources', () => {
  it('DELETE is a 409 saying how many; forceDisable removes them', async () => {
    const own = await objectStore();
    await put(own, `s3://${own.bucket}/data/a/1`, `s3://${own.bucket}/data/b/1`);
    const a = await registered(own, `a-${uid()}`, `s3://${own.bucket}/data/a/`);
    const b = await registered(own, `b-${uid()}`, `s3://${own.bucket}/data/b/`);
    const refused = await call('DELETE', `/integrations/${own.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      `integration ${own.id} has 2 data sources; delete them first (DELETE /data-sources/{id}) or pass forceDisable=true, which removes them from the service`,
    );
    expect((await call('DELETE', `/integrations/${own.id}?dryRun=true`)).status).toBe(409);
    const forced = await call('DELETE', `/integrations/${own.id}?forceDisable=true`);
    expect(forced.status, forced.text).toBe(200);
    expect(forced.body.status).toBe('disabled');
    for (const id of [a, b]) expect((await call('GET', `/data-sources/${id}`)).status).toBe(404);
    expect((await call('GET', `/data-sources?integrationId=${own.id}`)).body.dataSources).toEqual([]);
    expect((await integrationStore().then((s) => s.get(own.id)))?.dataSourceCount).toBe(0);
  });

  it('a force-disable that died half-way is finished by the same request again', async () => {
    const own = await objectStore();
    await put(own, `s3://${own.bucket}/data/a/1`);
    const a = await registered(own, `a-${uid()}`, `s3://${own.bucket}/data/a/`);
    // As if the disable was written and the process died before removing the data sources.
    await (await integrationStore()).setStatus(own.id, 'disabled');
    expect(
      (await register(own, [{ dataSourceName: `n-${uid()}`, prefix: `s3://${own.bucket}/data/a/` }])).status,
    ).toBe(409);
    const again = await call('DELETE', `/integrations/${own.id}?forceDisable=true`);
    expect(again.status, again.text).toBe(200);
    expect(again.body.status).toBe('disabled');
    expect((await call('GET', `/data-sources/${a}`)).status).toBe(404);
    // Nothing left: the integration's usual answer.
    expect((await call('DELETE', `/integrations/${own.id}?forceDisable=true`)).status).toBe(409);
  });

  it('a DELETE that read the integration before a data source was added loses its write', async () => {
    const own = await objectStore();
    await put(own, `s3://${own.bucket}/data/a/1`);
    const before = await integrationStore().then((s) => s.get(own.id));
    await registered(own, `a-${uid()}`, `s3://${own.bucket}/data/a/`);
    const after = await integrationStore().then((s) => s.get(own.id));
    expect(after?.version).toBe((before?.version as number) + 1);
    expect(after?.dataSourceCount).toBe(1);
    expect(await settle(own.id)).toBe('enabled');
  });

  it('only admins may call the routes', async () => {
    const { apiKey } = await createKey(`plain-${uid()}`, false);
    const r = await register(os, [{ dataSourceName: 'x', prefix: `s3://${os.bucket}/data/` }], apiKey);
    expect(r.status).toBe(403);
  });
});
