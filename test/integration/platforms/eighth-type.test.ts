/**
 * A platform type the code has never heard of: `ColumnStore`, declared in this file exactly as a
 * type folder declares one (its module, and its SQL half with a setup plan), registered at run
 * time as one entry. Schema validation, every script route's use case, a dry run's validation
 * and the sandbox lifecycle create → enabled → edit → enabled → delete → deleted then run through
 * generic code only: if any of it branched on the seven known types, this type would fail.
 *
 * It works on tables of its own in the local cloud's DynamoDB (the cloud process does not know
 * this type, so its records stay out of the tables the other files read).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod/mini';
import { ensureTables, localDynamoClient } from '../../../infra/local/dynamodb';
import { type TableName, tableEnvVar } from '../../../shared/catalog/tables';
import { scriptBodySchema } from '../../../shared/integrations/api/script-requests';
import { deleteScript, editScript, generateScript } from '../../../shared/integrations/api/scripts';
import type { IntegrationRecord } from '../../../shared/integrations/model';
import { encryptedPayload, integrationOwner, secretsOf } from '../../../shared/integrations/secrets';
import {
  getIntegration,
  insertWithClaims,
  updateIntegration,
} from '../../../shared/integrations/store/integrations';
import { putTransientSecret } from '../../../shared/integrations/store/transient-secrets';
import { recordOutcome } from '../../../shared/integrations/workflow/outcome';
import { applyEditTask, bootstrapTask, teardownTask } from '../../../shared/integrations/workflow/tasks';
import {
  type IntegrationType,
  payloadSchemaFor,
  registerPlatform,
  type SqlPayload,
} from '../../../shared/platforms';
import { sandboxConnector } from '../../../shared/platforms/connectors';
import { hostname, identifier, port, secret, text } from '../../../shared/platforms/fields';
import {
  configPayload,
  definePlatform,
  hostClaim,
  type PlatformModule,
} from '../../../shared/platforms/module';
import { readState } from '../../../shared/platforms/sandbox/store';
import type { PlanStep } from '../../../shared/platforms/sql/plan';
import type { SqlPlatform } from '../../../shared/platforms/sql/platform';
import { quoteIdent, quoteLiteral } from '../../../shared/platforms/sql/quote';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { nextId } from '../../../shared/store/counters';
import { useLocalCloudEnv } from '../../support/api';

// ── the eighth type, as its folder would declare it ────────────────────────────────────────

const TYPE = 'ColumnStore' as IntegrationType;
const ConfigSchema = z.strictObject({
  host: hostname(),
  port: port(6000),
  database: identifier(63),
  initialDatabase: z.optional(identifier(63)),
  username: text(63),
  password: secret(),
  readers: z._default(
    z.strictObject({ enabled: z._default(z.boolean(), false), role: z._default(identifier(63), 'readers') }),
    { enabled: false, role: 'readers' },
  ),
});
const PayloadSchema = configPayload('ColumnStore', ConfigSchema);
type Payload = z.output<typeof PayloadSchema>;

const columnStore = definePlatform<Payload>()({
  type: 'ColumnStore',
  payloadSchema: PayloadSchema,
  secretPaths: ['username', 'password'],
  settings: ['database', 'initialDatabase', 'readers'],
  nonEditable: ['host', 'database'],
  identityAttributes: ['config.host'],
  supportsAutoBootstrap: true,
  updatable: true,
  deletion: { schema: z.strictObject({ username: text(63), password: secret() }) },
  claims: (p) => [hostClaim(p.config.host)],
  remote: {
    host: (p) => p.config.host,
    connector: 'sql',
    scriptRoutes: ['initial-create', 'create', 'edit', 'cleanup', 'post-cleanup'],
  },
});

const id = (name: string) => quoteIdent('cluster', name, 'name');
const FRESH_DATABASE = 'ColumnStore: Database Does Not Exist';

function readersStep(config: Payload['config']): PlanStep[] {
  if (!config.readers.enabled) return [];
  return [
    {
      key: 'readers',
      phase: 'main',
      object: { kind: 'group', name: config.readers.role },
      create: [`CREATE GROUP ${id(config.readers.role)}`],
      undo: [`DROP GROUP ${id(config.readers.role)}`],
    },
  ];
}

const columnStoreSql: SqlPlatform<Payload> = {
  dialect: 'cluster',
  connectionTest: { name: 'ColumnStore: Basic Connection Test' },
  serviceTarget: ({ autoBootstrap, config }) => ({
    host: config.host,
    port: config.port,
    database: autoBootstrap ? config.initialDatabase : config.database,
    credentials: { username: config.username, password: config.password },
  }),
  privilegedTarget: (payload, credentials) => ({
    ...columnStoreSql.serviceTarget(payload),
    database: payload.config.initialDatabase,
    credentials,
  }),
  checks: async () => [],
  freshObjectTests: [{ name: FRESH_DATABASE, createOnly: true }],
  plan: ({ autoBootstrap, config }) => ({
    phases: { main: { database: config.initialDatabase } },
    steps: [
      ...(autoBootstrap
        ? []
        : [
            {
              key: 'user',
              phase: 'main',
              object: { kind: 'user', name: config.username },
              create: [
                `CREATE USER ${id(config.username)} PASSWORD ${quoteLiteral('cluster', config.password)}`,
              ],
              undo: [`DROP USER ${id(config.username)}`],
            } satisfies PlanStep,
          ]),
      {
        key: 'database',
        phase: 'main',
        object: { kind: 'database', name: config.database },
        create: [`CREATE DATABASE ${id(config.database)} OWNER ${id(config.username)}`],
        undo: [`DROP DATABASE ${id(config.database)}`],
        mustNotExist: FRESH_DATABASE,
      },
      ...readersStep(config),
    ],
  }),
  layouts: {
    setup: { title: 'ColumnStore setup', sections: [{ phase: 'main', note: 'Run as an administrator.' }] },
    delete: { title: 'ColumnStore removal', sections: [{ phase: 'main', note: 'Run as an administrator.' }] },
  },
  edit: (previous, next) => {
    const added = readersStep(next.config).filter(() => !previous.config.readers.enabled);
    const removed = readersStep(previous.config).filter(() => !next.config.readers.enabled);
    return {
      title: 'ColumnStore edit',
      sections: [
        {
          note: 'Run as an administrator.',
          steps: [
            ...added.map((s) => ({ key: s.key, statements: s.create, undo: s.undo })),
            ...removed.map((s) => ({ key: s.key, statements: s.undo, undo: s.create })),
          ],
        },
      ],
    };
  },
  sandbox: { account: 'user', identity: (c) => String(c.username ?? ''), session: () => ({}) },
};

// ── the run ─────────────────────────────────────────────────────────────────────────────

const host = `columnstore-${Date.now()}.example.com`;
const ADMIN = { username: 'operator_admin', password: 'admin-pw' };
const body = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) => ({
  type: 'ColumnStore',
  autoBootstrap,
  config: {
    host,
    database: 'columns',
    ...(autoBootstrap ? { initialDatabase: 'defaultdb', ...ADMIN } : { username: 'svc', password: 'svc-pw' }),
    ...extra,
  },
});
const payload = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payloadSchemaFor(body(autoBootstrap, extra)).parse(body(autoBootstrap, extra)) as SqlPayload;
const created = () =>
  Object.values(readState(TYPE, host).objects)
    .filter((o) => o.attrs.preexisting !== true)
    .map((o) => `${o.kind} ${o.name}`)
    .sort();

let unregister: () => void;

beforeAll(async () => {
  useLocalCloudEnv();
  // Tables of its own: the cloud process does not know this type.
  const names = await ensureTables(localDynamoClient(inject('endpoints').dynamodb), `eighth-${randomUUID()}`);
  for (const [name, physical] of Object.entries(names))
    process.env[tableEnvVar(name as TableName)] = physical;
  process.env.PLATFORM_MODE = 'sandbox';
  unregister = registerPlatform(columnStore as PlatformModule, columnStoreSql as unknown as SqlPlatform);
});

afterAll(() => unregister?.());

describe('a fake eighth SQL type, through generic code only', () => {
  it('validates its schema: the module decides, missing fields are named', () => {
    expect(payloadSchemaFor(body(false)).safeParse(body(false)).success).toBe(true);
    const parsed = scriptBodySchema('create').safeParse({ ...body(false), config: { host } });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['config.database', 'config.username', 'config.password']));
    const auto = scriptBodySchema('create').safeParse(body(true));
    expect(auto.error?.issues[0]?.message).toMatch(/autoBootstrap must be false/);
  });

  it('answers every body script route from its plan', async () => {
    const p = scriptBodySchema('create').parse(body(false, { readers: { enabled: true } }));
    expect((await generateScript('initial-create', p)).title).toBe(
      'ColumnStore initial setup: this type has a single setup step; run the create script',
    );
    expect(statementsOf(await generateScript('create', p))).toEqual([
      `CREATE USER "svc" PASSWORD 'svc-pw'`,
      'CREATE DATABASE "columns" OWNER "svc"',
      'CREATE GROUP "readers"',
    ]);
    expect(statementsOf(await generateScript('cleanup', p))).toEqual([
      'DROP GROUP "readers"',
      'DROP DATABASE "columns"',
      'DROP USER "svc"',
    ]);
    expect((await generateScript('post-cleanup', p)).title).toMatch(
      /^ColumnStore post-cleanup: only .* a second removal step$/,
    );
  });

  it('runs its validation as a dry run does, on the sandbox', async () => {
    const tests = await (await sandboxConnector(TYPE as never)).validate({
      operation: 'create',
      payload: payload(true),
    });
    expect(tests.map((t) => [t.name, t.status])).toEqual([
      ['ColumnStore: Basic Connection Test', 'passed'],
      [FRESH_DATABASE, 'passed'],
    ]);
  });

  it('goes create → enabled → edit → enabled → delete → deleted on the sandbox, and its stored scripts follow', async () => {
    const integrationId = await nextId('integrations');
    const sealed = await encryptedPayload(payload(true), integrationOwner(integrationId));
    const at = new Date().toISOString();
    const first = randomUUID();
    const record: IntegrationRecord = {
      id: integrationId,
      type: TYPE,
      autoBootstrap: true,
      config: sealed.config as Record<string, unknown>,
      status: 'creating',
      version: 1,
      claims: [`host#${host}`],
      operation: 'create',
      requestId: first,
      inFlightStatus: 'creating',
      createdAt: at,
      updatedAt: at,
    };
    await insertWithClaims(record);
    await bootstrapTask({ integrationId, operation: 'create', requestId: first });
    await recordOutcome({ integrationId, operation: 'create', requestId: first, outcome: 'succeeded' });
    expect((await getIntegration(integrationId))?.status).toBe('enabled');
    expect(created()).toEqual(['database columns']);

    // The stored integration's edit and delete scripts.
    const edited = scriptBodySchema('edit').parse({
      ...body(false),
      config: { ...body(true).config, readers: { enabled: true } },
    });
    expect(statementsOf(await editScript(integrationId, edited))).toEqual(['CREATE GROUP "readers"']);
    expect(statementsOf(await deleteScript(integrationId))).toEqual(['DROP DATABASE "columns"']);

    const second = randomUUID();
    const pending = await encryptedPayload(
      payload(true, { readers: { enabled: true } }),
      integrationOwner(integrationId),
    );
    const current = await getIntegration(integrationId);
    expect(
      await updateIntegration(
        integrationId,
        { version: current?.version, status: 'enabled' },
        {
          set: {
            status: 'editing',
            inFlightStatus: 'editing',
            operation: 'edit',
            requestId: second,
            pendingConfig: pending.config as Record<string, unknown>,
          },
        },
      ),
    ).toBe(true);
    await applyEditTask({ integrationId, operation: 'edit', requestId: second });
    await recordOutcome({ integrationId, operation: 'edit', requestId: second, outcome: 'succeeded' });
    expect((await getIntegration(integrationId))?.status).toBe('enabled');
    expect(created()).toEqual(['database columns', 'group readers']);

    const third = randomUUID();
    const credentialsRef = `${integrationId}-${third}`;
    const stored = (await getIntegration(integrationId)) as IntegrationRecord;
    await putTransientSecret(
      credentialsRef,
      await secretsOf(stored).sealCredentials(ADMIN, stored.id),
      integrationId,
      300,
    );
    expect(
      await updateIntegration(
        integrationId,
        { status: 'enabled' },
        {
          set: {
            status: 'deleting',
            inFlightStatus: 'deleting',
            operation: 'delete',
            requestId: third,
            credentialsRef,
          },
        },
      ),
    ).toBe(true);
    await teardownTask({ integrationId, operation: 'delete', requestId: third, credentialsRef });
    await recordOutcome({ integrationId, operation: 'delete', requestId: third, outcome: 'succeeded' });
    expect((await getIntegration(integrationId))?.status).toBe('deleted');
    expect(created()).toEqual([]);
  });
});
