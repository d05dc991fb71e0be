/**
 * Every config field of every type is a secret, a setting, or connection identity (the default),
 * and the placeholder keeps a stored secret only while the connection identity is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { httpStatusOf } from '../../../shared/edge/errors';
import { assertSecretsResent } from '../../../shared/integrations/api/rules';
import { INTEGRATION_TYPES, payloadSchemaFor, platformOf, platforms } from '../../../shared/platforms';
import {
  configSchemaOf,
  connectionChanges,
  connectionPaths,
  covers,
  leafPaths,
} from '../../../shared/platforms/connection';
import { getPath, setPath } from '../../../shared/platforms/module';
import { payloads } from '../integrations/fixtures';

/**
 * The connection identity of each type, pinned: a change here is a security review. One of the
 * two hand-written pins of registry facts (the other, the list of types: ./registry.test.ts).
 * `connection`: the config fields whose change needs every secret again; `identity`: what an
 * update may not change without the integration's claims changing (`identityAttributes`).
 */
const EXPECTED: Record<string, { connection: string[]; identity: string[] }> = {
  ObjectStore: {
    connection: ['cloudAccountId', 'cloudRegion', 'port'],
    identity: ['config.name', 'config.cloudLocationPath'],
  },
  AnalyticsWarehouse: { connection: ['host', 'port', 'connectArgs'], identity: ['config.host'] },
  Lakehouse: {
    connection: ['port', 'workspaceUrl', 'httpPath', 'oAuthClientConfig.authorityUrl'],
    identity: ['config.workspaceUrl'],
  },
  DatasetWarehouse: { connection: ['port'], identity: ['config.credential (its project_id)'] },
  ClusterWarehouse: { connection: ['host', 'port', 'connectArgs', 'idp.idpHost'], identity: ['config.host'] },
  CloudWarehouse: {
    connection: ['host', 'port', 'connectArgs', 'privilegedConnectArgs', 'oAuthClientConfig.authorityUrl'],
    identity: ['config.host'],
  },
  FederatedSql: { connection: [], identity: [] },
};

/** A fixture's config as it is stored (parsed: defaults applied). */
const storedConfig = (body: unknown) =>
  (payloadSchemaFor(body).parse(body) as { config?: Record<string, unknown> }).config ?? {};

function thrown(fn: () => void): { status: number | undefined; message: string } | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return { status: httpStatusOf(error), message: (error as Error).message };
  }
}

describe('connection identity', () => {
  it('is pinned for every registered type', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...INTEGRATION_TYPES].sort());
    for (const module of platforms()) {
      expect([module.type, connectionPaths(module)]).toEqual([
        module.type,
        EXPECTED[module.type]?.connection,
      ]);
      expect([module.type, [...module.identityAttributes]]).toEqual([
        module.type,
        EXPECTED[module.type]?.identity,
      ]);
    }
  });

  it('every declared secret and setting names config fields, and none is both', () => {
    for (const module of platforms()) {
      const schema = configSchemaOf(module);
      const leaves = schema ? [...leafPaths(schema)] : [];
      for (const path of [...module.secretPaths, ...module.settings])
        expect(
          leaves.some((leaf) => covers(path, leaf)),
          `${module.type}: ${path}`,
        ).toBe(true);
      for (const setting of module.settings)
        expect(
          module.secretPaths.filter((s) => covers(setting, s) || covers(s, setting)),
          module.type,
        ).toEqual([]);
    }
  });

  it('a field no module mentions is connection identity (the safe default)', () => {
    const module = platformOf('AnalyticsWarehouse');
    const unclassified = { ...module, settings: module.settings.filter((s) => s !== 'schema') };
    expect(connectionPaths(unclassified)).toContain('schema');
  });

  it('includes every host, port, URL and connection-argument field', () => {
    for (const module of platforms()) {
      const schema = configSchemaOf(module);
      const named = [...(schema ? leafPaths(schema) : [])].filter((p) =>
        /(^|\.)(host|port|idpHost|\w*Url|\w*ConnectArgs|connectArgs|httpPath)$/.test(p),
      );
      expect(connectionPaths(module)).toEqual(expect.arrayContaining(named));
    }
  });
});

describe('reusing stored secrets (the placeholder)', () => {
  /** A different value of the same kind. */
  const other = (value: unknown) =>
    typeof value === 'number'
      ? value + 1
      : typeof value === 'string' && value.startsWith('https://')
        ? 'https://elsewhere.example.net/'
        : `${String(value ?? '')}x`;

  it('needs every secret again when any connection field of any type changes (400 naming them)', () => {
    for (const [type, body] of Object.entries(payloads())) {
      const module = platformOf(type as never);
      const stored = storedConfig(body);
      const secrets = module.secretPaths.filter((p) => typeof getPath(stored, p) === 'string');
      for (const path of connectionPaths(module)) {
        const next = structuredClone(stored) as Record<string, unknown>;
        if (getPath(next, path) === undefined) continue; // an optional field the fixture leaves out
        setPath(next, path, other(getPath(next, path)));
        expect(connectionChanges(module, stored, next)).toEqual([path]);
        const refused = thrown(() => assertSecretsResent(module.type as never, stored, next, secrets));
        expect(refused?.status, `${type} ${path}`).toBe(400);
        for (const secret of secrets) expect(refused?.message).toContain(`config.${secret}`);
        expect(refused?.message).toContain(`config.${path}`);
        // Every secret sent again: nothing is reused, nothing to refuse.
        expect(thrown(() => assertSecretsResent(module.type as never, stored, next, []))).toBeUndefined();
      }
    }
  });

  it('keeps stored secrets when only settings change', () => {
    for (const [type, body] of Object.entries(payloads())) {
      const module = platformOf(type as never);
      const stored = storedConfig(body);
      const next = structuredClone(stored) as Record<string, unknown>;
      for (const setting of module.settings) {
        const value = getPath(next, setting);
        if (typeof value === 'string' || typeof value === 'number') setPath(next, setting, other(value));
      }
      expect(connectionChanges(module, stored, next), type).toEqual([]);
      expect(
        thrown(() => assertSecretsResent(module.type as never, stored, next, module.secretPaths)),
      ).toBeUndefined();
    }
  });

  it('refuses the reported ClusterWarehouse and AnalyticsWarehouse downgrades', () => {
    const cluster = storedConfig(payloads().ClusterWarehouse);
    const weakened = { ...cluster, connectArgs: 'sslmode=disable', port: 1 };
    expect(
      thrown(() => assertSecretsResent('ClusterWarehouse', cluster, weakened, ['username', 'password'])),
    ).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /config\.username, config\.password: .*\(config\.port, config\.connectArgs\)/,
      ),
    });
    const analytics = storedConfig(payloads().AnalyticsWarehouse);
    const trusting = { ...analytics, connectArgs: 'trustServerCertificate=true', port: 14330 };
    expect(
      thrown(() => assertSecretsResent('AnalyticsWarehouse', analytics, trusting, ['password']))?.status,
    ).toBe(400);
  });
});
