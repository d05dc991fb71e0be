/**
 * The connector for the SQL platforms (CloudWarehouse, ClusterWarehouse, AnalyticsWarehouse,
 * Lakehouse), shared by the real drivers and the sandbox: validation tests, automatic setup,
 * edits and teardown all run the statements of `./scripts` through a `PlatformDriver`.
 */

import { CLOUD_SYSTEM_ROLE, cloudSchemas } from './cloud-warehouse/scripts';
import { CLUSTER_SCHEMAS, CLUSTER_SYSTEM_GROUP } from './cluster-warehouse/scripts';
import {
  ConnectionFailure,
  type ConnectTarget,
  failureMessage,
  type PlatformDriver,
  type PlatformSession,
  type RemoteObject,
} from './driver';
import { lakehouseHost } from './lakehouse/schema';
import { LAKEHOUSE_AUDIT_SCHEMA, LAKEHOUSE_SCHEMAS } from './lakehouse/scripts';
import {
  type BootstrapRequest,
  type EditRequest,
  type PlatformConnector,
  PlatformOperationError,
  type TeardownRequest,
  TransientPlatformError,
  type ValidateRequest,
  type ValidationTest,
} from './port';
import { changeScript, removalScript, type SqlPayload, type SqlType, setupScript } from './scripts';
import type { Script } from './sql/script';
import { failed, passed, skipped, TEST } from './validation-tests';

/** Where and as whom the service connects for a payload (its own credentials). */
export function serviceTarget(payload: SqlPayload): ConnectTarget {
  switch (payload.type) {
    case 'ClusterWarehouse': {
      const c = payload.config;
      return {
        host: c.host,
        port: c.port,
        database: payload.autoBootstrap ? c.initialDatabase : c.database,
        connectArgs: c.connectArgs,
        credentials: credentialsOf(c),
      };
    }
    case 'CloudWarehouse': {
      const c = payload.config;
      return {
        host: c.host,
        port: c.port,
        role: payload.autoBootstrap ? c.role : undefined,
        connectArgs: payload.autoBootstrap ? (c.privilegedConnectArgs ?? c.connectArgs) : c.connectArgs,
        credentials: credentialsOf(c),
      };
    }
    case 'AnalyticsWarehouse': {
      const c = payload.config;
      return {
        host: c.host,
        port: c.port,
        database: c.database,
        connectArgs: c.connectArgs,
        credentials: { username: c.username, password: c.password },
      };
    }
    case 'Lakehouse': {
      const c = payload.config;
      return { host: lakehouseHost(c), port: c.port, httpPath: c.httpPath, credentials: credentialsOf(c) };
    }
  }
}

function credentialsOf(config: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (
      [
        'authenticationType',
        'username',
        'password',
        'privateKey',
        'token',
        'oAuthClientConfig',
        'idp',
        'databaseUser',
        'accessKeyId',
        'secretKey',
        'sessionToken',
      ].includes(k)
    )
      out[k] = v;
  }
  return out;
}

/** Where and as whom teardown connects: the privileged delete credentials. */
export function privilegedTarget(payload: SqlPayload, privileged: Record<string, unknown>): ConnectTarget {
  const base = serviceTarget(payload);
  const { role, ...credentials } = privileged;
  if (payload.type === 'CloudWarehouse')
    return { ...base, role: typeof role === 'string' ? role : undefined, credentials };
  if (payload.type === 'ClusterWarehouse')
    return { ...base, database: payload.config.initialDatabase, credentials };
  return { ...base, credentials };
}

/**
 * Teardown connects with the privileged delete credentials; a Lakehouse (whose DELETE takes no
 * credentials) with its own service principal, which owns the catalog. Manual: no connection.
 */
export function teardownTarget(
  payload: SqlPayload,
  privileged: Record<string, unknown> | undefined,
): ConnectTarget | undefined {
  if (!payload.autoBootstrap) return undefined;
  if (payload.type === 'Lakehouse') return serviceTarget(payload);
  return privileged ? privilegedTarget(payload, privileged) : undefined;
}

/** The objects a completed setup leaves (checked for manual integrations). */
export function expectedObjects(payload: SqlPayload): RemoteObject[] {
  switch (payload.type) {
    case 'ClusterWarehouse': {
      const c = payload.config;
      const out: RemoteObject[] = [
        { kind: 'database', name: c.database },
        { kind: 'group', name: CLUSTER_SYSTEM_GROUP },
        ...CLUSTER_SCHEMAS.map((s): RemoteObject => ({ kind: 'schema', name: s, parent: c.database })),
      ];
      if (c.impersonation.enabled) out.push({ kind: 'group', name: c.impersonation.role });
      return out;
    }
    case 'CloudWarehouse': {
      const c = payload.config;
      const out: RemoteObject[] = [
        { kind: 'role', name: CLOUD_SYSTEM_ROLE },
        { kind: 'database', name: c.database },
        ...cloudSchemas(c).map((s): RemoteObject => ({ kind: 'schema', name: s, parent: c.database })),
      ];
      if (c.impersonation.enabled) out.push({ kind: 'role', name: c.impersonation.role });
      return out;
    }
    case 'AnalyticsWarehouse': {
      const c = payload.config;
      const out: RemoteObject[] = [{ kind: 'schema', name: c.schema, parent: c.database }];
      if (c.impersonation.enabled) out.push({ kind: 'role', name: c.impersonation.role, parent: c.database });
      return out;
    }
    case 'Lakehouse': {
      const c = payload.config;
      const schemas = [...LAKEHOUSE_SCHEMAS, ...(c.audit.enabled ? [LAKEHOUSE_AUDIT_SCHEMA] : [])];
      return [
        { kind: 'catalog', name: c.catalog },
        ...schemas.map((s): RemoteObject => ({ kind: 'schema', name: s, parent: c.catalog })),
      ];
    }
  }
}

function describeObject(o: RemoteObject): string {
  return `${o.kind} ${o.parent ? `${o.parent}.` : ''}${o.name}`;
}

export interface RunOptions {
  /** Removal scripts: a statement failing because its object is already gone is skipped. */
  tolerateMissing?: boolean;
  /** Sandbox trigger: fail after this many statements (a failure half-way). */
  stopAfter?: number;
}

/** Runs a script section by section, one connection per section. */
export async function runScript(
  driver: PlatformDriver,
  target: ConnectTarget,
  script: Script,
  options: RunOptions = {},
): Promise<void> {
  let count = 0;
  for (const section of script.sections) {
    const session = await connectForOperation(driver, {
      ...target,
      database: section.database ?? target.database,
    });
    try {
      for (const statement of section.statements) {
        if (options.stopAfter !== undefined && count >= options.stopAfter)
          throw new PlatformOperationError(`the platform failed after ${count} of the setup statements`);
        try {
          await session.run(statement);
        } catch (error) {
          if (options.tolerateMissing && driver.isMissingObjectError(error)) continue;
          if (error instanceof PlatformOperationError) throw error;
          throw new PlatformOperationError(
            `statement ${count + 1} (${statement.split(' ').slice(0, 3).join(' ')} …) failed: ${safeReason(error)}`,
          );
        } finally {
          count++;
        }
      }
    } finally {
      await session.close();
    }
  }
}

/** Driver error text is kept short and stripped of quoted values (which could echo a literal). */
function safeReason(error: unknown): string {
  const message = String((error as Error)?.message ?? 'error').split('\n')[0] ?? 'error';
  return message.replace(/'[^']*'/g, "'…'").slice(0, 200);
}

async function connectForOperation(driver: PlatformDriver, target: ConnectTarget): Promise<PlatformSession> {
  try {
    return await driver.connect(target);
  } catch (error) {
    if (error instanceof ConnectionFailure) {
      const message = failureMessage(error, target.host, target.port);
      if (error.reason === 'timeout' || error.reason === 'unreachable' || error.reason === 'refused')
        throw new TransientPlatformError(message);
      throw new PlatformOperationError(message);
    }
    throw error;
  }
}

type Connected =
  | { session: PlatformSession; test: ValidationTest }
  | { session: undefined; test: ValidationTest };

async function tryConnect(driver: PlatformDriver, target: ConnectTarget, name: string): Promise<Connected> {
  try {
    const session = await driver.connect(target);
    return { session, test: passed(name) };
  } catch (error) {
    if (error instanceof ConnectionFailure)
      return {
        session: undefined,
        test: failed(name, failureMessage(error, target.host, target.port)),
      };
    return { session: undefined, test: failed(name, `connecting to ${target.host}:${target.port} failed`) };
  }
}

export interface SqlConnectorHooks {
  /** Sandbox triggers: how many statements to run before failing (undefined: no failure). */
  failAfter?(
    operation: 'bootstrap' | 'edit' | 'teardown',
    target: ConnectTarget,
    total: number,
  ): number | undefined;
}

export function sqlConnector(
  type: SqlType,
  driver: PlatformDriver,
  hooks: SqlConnectorHooks = {},
): PlatformConnector {
  async function validate(request: ValidateRequest): Promise<ValidationTest[]> {
    const payload = request.payload as SqlPayload;
    const basicName = type === 'Lakehouse' ? TEST.lakehouseBasicConnection : TEST.basicConnection;
    if (request.operation === 'delete') {
      const target = teardownTarget(payload, request.privilegedCredentials);
      if (!target)
        return [
          skipped(basicName, 'nothing to check: the service removes no remote objects for this integration'),
        ];
      const { session, test } = await tryConnect(driver, target, basicName);
      await session?.close();
      return [test];
    }
    const target = serviceTarget(payload);
    const connected = await tryConnect(driver, target, basicName);
    const tests: ValidationTest[] = [];
    if (type === 'Lakehouse') {
      tests.push({
        ...connected.test,
        result: [{ host: target.host, httpPath: target.httpPath, status: connected.test.status }],
      });
    } else tests.push(connected.test);
    const session = connected.session;
    try {
      tests.push(...(await typeTests(request, payload, session)));
    } finally {
      await session?.close();
    }
    return tests;
  }

  async function typeTests(
    request: ValidateRequest,
    payload: SqlPayload,
    session: PlatformSession | undefined,
  ): Promise<ValidationTest[]> {
    const tests: ValidationTest[] = [];
    const creating = request.operation === 'create';
    const previous = request.previous as SqlPayload | undefined;
    const skip = (name: string, why: string) => skipped(name, why);
    const none = (name: string) => skip(name, 'skipped: the connection test failed');
    const auto = payload.autoBootstrap;

    if (payload.type === 'CloudWarehouse') {
      const c = payload.config;
      if (!session) tests.push(none(TEST.defaultWarehouse));
      else if (!auto && creating)
        tests.push(skip(TEST.defaultWarehouse, 'checked with the manual setup below'));
      else
        tests.push(
          (await session.canUseWarehouse(c.warehouse))
            ? passed(TEST.defaultWarehouse)
            : failed(TEST.defaultWarehouse, `the user cannot use warehouse ${c.warehouse}`),
        );
      tests.push(skip(TEST.rolePrefixUnique, 'table grants are not part of this configuration'));
      if (!auto) tests.push(skip(TEST.privilegedRole, 'manual setup: no privileged role is used'));
      else if (!session) tests.push(none(TEST.privilegedRole));
      else
        tests.push(
          (await session.canUseRole(c.role ?? ''))
            ? passed(TEST.privilegedRole)
            : failed(TEST.privilegedRole, `the user cannot use the privileged role ${c.role ?? ''}`),
        );
    }
    if (payload.type === 'ClusterWarehouse' || payload.type === 'AnalyticsWarehouse') {
      if (!auto)
        tests.push(skip(TEST.bootstrapUserGrants, 'manual setup: the operator ran the setup script'));
      else if (!session) tests.push(none(TEST.bootstrapUserGrants));
      else {
        const missing = await session.missingBootstrapRights();
        tests.push(
          missing.length === 0
            ? passed(TEST.bootstrapUserGrants)
            : failed(
                TEST.bootstrapUserGrants,
                `the user lacks rights needed for automatic setup: ${missing.join(', ')}`,
              ),
        );
      }
    }
    if (payload.type === 'Lakehouse') {
      if (!session)
        tests.push(failed(TEST.metastore, 'the metastore information could not be obtained: no connection'));
      else {
        const metastore = await session.metastore();
        tests.push(
          metastore
            ? passed(TEST.metastore, undefined, [metastore])
            : failed(
                TEST.metastore,
                'the metastore information could not be obtained: is the workspace attached to a metastore?',
              ),
        );
      }
    }
    // Objects automatic setup is about to create must not exist yet.
    if (auto) {
      const fresh = await mustNotExist(payload, previous, creating);
      for (const { name, object } of fresh) {
        if (!object) tests.push(skip(name, 'nothing new to create'));
        else if (!session) tests.push(none(name));
        else
          tests.push(
            (await session.exists(object))
              ? failed(name, `${describeObject(object)} already exists; remove it or choose another name`)
              : passed(name),
          );
      }
    } else {
      if (!session) tests.push(none(TEST.manualSetup));
      else {
        const missing: string[] = [];
        for (const object of expectedObjects(payload))
          if (!(await session.exists(object))) missing.push(describeObject(object));
        tests.push(
          missing.length === 0
            ? passed(TEST.manualSetup)
            : failed(
                TEST.manualSetup,
                `missing ${missing.join(', ')}: run the script from POST /integrations/scripts/${creating ? 'create' : `{id}/scripts/edit`} first`,
              ),
        );
      }
    }
    return tests;
  }

  async function mustNotExist(
    payload: SqlPayload,
    previous: SqlPayload | undefined,
    creating: boolean,
  ): Promise<{ name: string; object?: RemoteObject }[]> {
    const out: { name: string; object?: RemoteObject }[] = [];
    const impersonation = (p: SqlPayload | undefined) =>
      p && 'impersonation' in p.config && p.config.impersonation.enabled
        ? p.config.impersonation.role
        : undefined;
    if (creating) {
      if (payload.type === 'ClusterWarehouse' || payload.type === 'CloudWarehouse')
        out.push({
          name: TEST.databaseDoesNotExist,
          object: { kind: 'database', name: payload.config.database },
        });
      if (payload.type === 'AnalyticsWarehouse')
        out.push({
          name: TEST.schemaDoesNotExist,
          object: { kind: 'schema', name: payload.config.schema, parent: payload.config.database },
        });
      if (payload.type === 'Lakehouse')
        out.push({
          name: TEST.catalogDoesNotExist,
          object: { kind: 'catalog', name: payload.config.catalog },
        });
    }
    if (payload.type !== 'Lakehouse') {
      const role = impersonation(payload);
      const before = creating ? undefined : impersonation(previous);
      const kind = payload.type === 'ClusterWarehouse' ? 'group' : 'role';
      const parent = payload.type === 'AnalyticsWarehouse' ? payload.config.database : undefined;
      out.push({
        name: TEST.impersonationRoleDoesNotExist,
        object:
          role !== undefined && role !== before
            ? { kind, name: role, ...(parent ? { parent } : {}) }
            : undefined,
      });
    }
    return out;
  }

  async function verifyManual(payload: SqlPayload): Promise<void> {
    const target = serviceTarget(payload);
    const session = await connectForOperation(driver, target);
    try {
      const missing: string[] = [];
      for (const object of expectedObjects(payload))
        if (!(await session.exists(object))) missing.push(describeObject(object));
      if (missing.length > 0)
        throw new PlatformOperationError(`the manual setup is incomplete: missing ${missing.join(', ')}`);
    } finally {
      await session.close();
    }
  }

  const count = (s: Script) => s.sections.reduce((n, x) => n + x.statements.length, 0);

  return {
    type,
    validate,
    async bootstrap(request: BootstrapRequest) {
      const payload = request.payload as SqlPayload;
      const target = serviceTarget(payload);
      if (!payload.autoBootstrap) {
        const stop = hooks.failAfter?.('bootstrap', target, 0);
        if (stop !== undefined)
          throw new PlatformOperationError('the platform failed while verifying the setup');
        return verifyManual(payload);
      }
      const script = setupScript(payload);
      await runScript(driver, target, script, {
        stopAfter: hooks.failAfter?.('bootstrap', target, count(script)),
      });
    },
    async applyEdit(request: EditRequest) {
      const payload = request.payload as SqlPayload;
      const target = serviceTarget(payload);
      if (!payload.autoBootstrap) {
        const stop = hooks.failAfter?.('edit', target, 0);
        if (stop !== undefined)
          throw new PlatformOperationError('the platform failed while verifying the setup');
        return verifyManual(payload);
      }
      const script = changeScript(request.previous as SqlPayload, payload);
      await runScript(driver, target, script, {
        stopAfter: hooks.failAfter?.('edit', target, count(script)),
      });
    },
    async teardown(request: TeardownRequest) {
      const payload = request.payload as SqlPayload;
      // Manual integrations are removed by the operator's delete script.
      const target = teardownTarget(payload, request.privilegedCredentials);
      if (!target) return;
      const script = removalScript(payload);
      await runScript(driver, target, script, {
        tolerateMissing: true,
        stopAfter: hooks.failAfter?.('teardown', target, count(script)),
      });
    },
  };
}
