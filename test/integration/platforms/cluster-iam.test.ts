/**
 * ClusterWarehouse access-key and idp authentication end to end, on loopback only: a fake
 * Okta-style identity provider and fake Redshift / Redshift Serverless / STS APIs (loopback
 * HTTP servers that verify what they receive, including the SigV4 signatures), then a REAL
 * PostgreSQL server (started by this file) into which the driver logs in as the user the fake
 * credential API returned, with the password it generated.
 *
 * Over 400 lines: the fake identity provider and cloud APIs are this file's fixtures and only its.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClusterDriver } from '../../../shared/platforms/cluster-warehouse/driver';
import type { ClusterAuthOptions } from '../../../shared/platforms/cluster-warehouse/iam-auth';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { ValidationTest } from '../../../shared/platforms/port';
import type { SqlPayload } from '../../../shared/platforms/scripts';
import { sqlConnector } from '../../../shared/platforms/sql/connector';
import {
  closedPort,
  type LoopbackServer,
  queryError,
  type ReceivedRequest,
  type Reply,
  startLoopback,
  verifySigV4,
} from '../../support/loopback';
import { startPostgres, type TestPostgres } from '../../support/postgres';

/**
 * The connect timeout of the two tests that wait for it to fire. Every other test runs with
 * HANG_GUARD_MS: logging in to PostgreSQL through the fakes took longer than 1.5 s on a loaded
 * two-core machine, and a test waits for completion, not for a deadline sized for a quiet one.
 */
const TIMEOUT_MS = 1500;
const HANG_GUARD_MS = 30_000;
const REGION = 'us-east-1';
const CLUSTER = 'test-cluster';
const WORKGROUP = 'test-wg';
const DB_USER = 'IAM:svc_iam';

const ACCESS_KEY = { id: 'AKIATESTKEY0000001', secret: `sk-${randomUUID()}`, token: `st-${randomUUID()}` };
const IDP = {
  username: 'jane@example.com',
  password: `idp-pw-${randomUUID()}`,
  appId: '0oa1appid',
  idpHost: 'idp.example.test',
  role: 'arn:aws:iam::123456789012:role/RedshiftSetup',
};
const PROVIDER = 'arn:aws:iam::123456789012:saml-provider/Okta';
const TEMP_KEY = { id: 'ASIATEMPKEY000001', secret: `tsk-${randomUUID()}`, token: `tst-${randomUUID()}` };

let server: TestPostgres;
let aws: LoopbackServer;
let idp: LoopbackServer;
let refusedPort: number;

/** What the fakes saw, reset before each test. */
let seen: {
  authn: number;
  saml: number;
  sts: Record<string, string>[];
  credentials: { action: string; params: Record<string, string>; signedBy: string; token?: string }[];
  issuedPasswords: string[];
};
/** Overrides of the fakes' behaviour for one test. */
let behaviour: { awsHang?: boolean; roles?: string[] };
let sessionTokens: Set<string>;
let assertions: Set<string>;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.superuser,
    password: server.password,
    database: 'postgres',
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Like Redshift, a fresh password for the database user on every credential request. */
async function issuePassword(): Promise<string> {
  const password = `tmp-${randomBytes(12).toString('hex')}`;
  await admin((c) => c.query(`ALTER ROLE "${DB_USER}" PASSWORD '${password}'`));
  seen.issuedPasswords.push(password);
  return password;
}

function samlResponse(roles: string[]): string {
  const values = roles.map((r) => `<saml2:AttributeValue>${r}</saml2:AttributeValue>`).join('');
  const xml = `<?xml version="1.0"?><saml2p:Response xmlns:saml2p="urn:oasis:names:tc:SAML:2.0:protocol"><saml2:Assertion xmlns:saml2="urn:oasis:names:tc:SAML:2.0:assertion"><saml2:AttributeStatement><saml2:Attribute Name="https://aws.amazon.com/SAML/Attributes/Role">${values}</saml2:Attribute><saml2:Attribute Name="https://redshift.amazon.com/SAML/Attributes/DbUser"><saml2:AttributeValue>svc_iam</saml2:AttributeValue></saml2:Attribute></saml2:AttributeStatement></saml2:Assertion></saml2p:Response>`;
  return Buffer.from(xml).toString('base64');
}

async function fakeIdp(req: ReceivedRequest): Promise<Reply> {
  if (req.method === 'POST' && req.url.pathname === '/api/v1/authn') {
    seen.authn++;
    const body = JSON.parse(req.body) as { username?: string; password?: string };
    if (body.username !== IDP.username || body.password !== IDP.password)
      return {
        status: 401,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ errorCode: 'E0000004', errorSummary: 'Authentication failed' }),
      };
    const token = randomUUID();
    sessionTokens.add(token);
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'SUCCESS', sessionToken: token, expiresAt: new Date().toISOString() }),
    };
  }
  if (req.method === 'GET' && req.url.pathname === `/app/amazon_aws/${IDP.appId}/sso/saml`) {
    seen.saml++;
    const token = req.url.searchParams.get('sessionToken') ?? '';
    if (!sessionTokens.delete(token)) return { status: 403, body: '<html>Sign in</html>' };
    const value = samlResponse(
      behaviour.roles ?? [`${PROVIDER},arn:aws:iam::123456789012:role/Other`, `${IDP.role},${PROVIDER}`],
    );
    assertions.add(value);
    // Okta encodes + and = as character references in the form.
    const encoded = value.replaceAll('+', '&#x2b;').replaceAll('=', '&#x3d;');
    return {
      headers: { 'content-type': 'text/html' },
      body: `<html><body onload="document.forms[0].submit()"><form method="POST" action="https://signin.aws.amazon.com/saml"><input name="SAMLResponse" type="hidden" value="${encoded}"/><input name="RelayState" type="hidden" value=""/></form></body></html>`,
    };
  }
  return { status: 404 };
}

const xml = (body: string): Reply => ({ headers: { 'content-type': 'text/xml' }, body });

async function fakeAws(req: ReceivedRequest): Promise<Reply> {
  if (behaviour.awsHang) return { hang: true };
  const target = String(req.headers['x-amz-target'] ?? '');
  if (target === 'RedshiftServerless.GetCredentials') {
    const signed = verifySigV4(req, (id) => (id === ACCESS_KEY.id ? ACCESS_KEY.secret : undefined));
    if (signed?.service !== 'redshift-serverless' || signed.region !== REGION)
      return {
        status: 400,
        headers: { 'content-type': 'application/x-amz-json-1.1' },
        body: JSON.stringify({ __type: 'UnrecognizedClientException', message: 'bad signature' }),
      };
    const params = JSON.parse(req.body) as Record<string, string>;
    seen.credentials.push({ action: 'GetCredentials', params, signedBy: signed.accessKeyId });
    if (params.workgroupName !== WORKGROUP)
      return {
        status: 400,
        headers: { 'content-type': 'application/x-amz-json-1.1' },
        body: JSON.stringify({ __type: 'ResourceNotFoundException', message: 'no such workgroup' }),
      };
    return {
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: JSON.stringify({ dbUser: DB_USER, dbPassword: await issuePassword(), expiration: 1_900_000_000 }),
    };
  }
  const params = Object.fromEntries(new URLSearchParams(req.body));
  if (params.Action === 'AssumeRoleWithSAML') {
    seen.sts.push(params);
    if (req.headers.authorization) return { status: 400, ...xml(queryError('InvalidRequest', 'signed')) };
    if (!assertions.has(params.SAMLAssertion ?? '') || params.PrincipalArn !== PROVIDER)
      return { status: 400, ...xml(queryError('InvalidIdentityToken', 'bad assertion')) };
    if (params.RoleArn !== IDP.role)
      return { status: 403, ...xml(queryError('AccessDenied', 'not allowed')) };
    return xml(
      `<AssumeRoleWithSAMLResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithSAMLResult><Credentials><AccessKeyId>${TEMP_KEY.id}</AccessKeyId><SecretAccessKey>${TEMP_KEY.secret}</SecretAccessKey><SessionToken>${TEMP_KEY.token}</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration></Credentials><Subject>jane</Subject></AssumeRoleWithSAMLResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></AssumeRoleWithSAMLResponse>`,
    );
  }
  if (params.Action === 'GetClusterCredentials') {
    const signed = verifySigV4(req, (id) =>
      id === ACCESS_KEY.id ? ACCESS_KEY.secret : id === TEMP_KEY.id ? TEMP_KEY.secret : undefined,
    );
    if (signed?.service !== 'redshift' || signed.region !== REGION)
      return {
        status: 403,
        ...xml(queryError('SignatureDoesNotMatch', 'The request signature does not match')),
      };
    const token = req.headers['x-amz-security-token'];
    seen.credentials.push({
      action: 'GetClusterCredentials',
      params,
      signedBy: signed.accessKeyId,
      ...(typeof token === 'string' ? { token } : {}),
    });
    if (params.ClusterIdentifier !== CLUSTER)
      return { status: 404, ...xml(queryError('ClusterNotFound', 'Cluster not found')) };
    return xml(
      `<GetClusterCredentialsResponse xmlns="http://redshift.amazonaws.com/doc/2012-12-01/"><GetClusterCredentialsResult><DbUser>${DB_USER}</DbUser><DbPassword>${await issuePassword()}</DbPassword><Expiration>2030-01-01T00:00:00Z</Expiration></GetClusterCredentialsResult><ResponseMetadata><RequestId>r-2</RequestId></ResponseMetadata></GetClusterCredentialsResponse>`,
    );
  }
  return { status: 400, ...xml(queryError('InvalidAction', 'unknown')) };
}

beforeAll(async () => {
  process.env.CONNECT_TIMEOUT_MS = String(HANG_GUARD_MS);
  [server, aws, idp, refusedPort] = await Promise.all([
    startPostgres(),
    startLoopback(fakeAws),
    startLoopback(fakeIdp),
    closedPort(),
  ]);
  // The database user the credential APIs map to: may create databases, not roles.
  await admin((c) => c.query(`CREATE ROLE "${DB_USER}" LOGIN CREATEDB`));
}, 60_000);

afterAll(async () => {
  delete process.env.CONNECT_TIMEOUT_MS;
  await Promise.all([aws?.close(), idp?.close()]);
  server?.stop();
});

beforeEach(() => {
  seen = { authn: 0, saml: 0, sts: [], credentials: [], issuedPasswords: [] };
  behaviour = {};
  sessionTokens = new Set();
  assertions = new Set();
});

const options = (): ClusterAuthOptions => ({ awsEndpoint: aws.origin, idpOrigin: idp.origin });

function payload(auth: Record<string, unknown>, connectArgs: string, autoBootstrap = true): SqlPayload {
  return IntegrationPayloadSchema.parse({
    type: 'ClusterWarehouse',
    autoBootstrap,
    config: {
      host: server.host,
      port: server.port,
      database: 'svc_iam_db',
      ...(autoBootstrap ? { initialDatabase: 'postgres' } : {}),
      connectArgs,
      ...auth,
    },
  }) as SqlPayload;
}

const provisioned = `sslmode=disable&clusterIdentifier=${CLUSTER}&region=${REGION}`;
const accessKey = (secret = ACCESS_KEY.secret, sessionToken?: string) => ({
  authenticationType: 'accessKey',
  databaseUser: 'svc_iam',
  accessKeyId: ACCESS_KEY.id,
  secretKey: secret,
  ...(sessionToken ? { sessionToken } : {}),
});
const idpAuth = (password = IDP.password) => ({ authenticationType: 'idp', idp: { ...IDP, password } });

const SECRETS = [ACCESS_KEY.secret, ACCESS_KEY.token, IDP.password, TEMP_KEY.secret, TEMP_KEY.token];
function expectNoSecrets(tests: ValidationTest[]) {
  const text = JSON.stringify(tests);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  for (const password of seen.issuedPasswords) expect(text).not.toContain(password);
}

async function validate(p: SqlPayload, opts = options()) {
  const connector = sqlConnector('ClusterWarehouse', createClusterDriver(opts));
  const started = Date.now();
  const tests = await connector.validate({ operation: 'create', payload: p });
  expectNoSecrets(tests);
  return { tests, ms: Date.now() - started, basic: tests[0] };
}

/** Runs `fn` with the connect timeout at `ms`, then puts the file's hang guard back. */
async function withConnectTimeout<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  process.env.CONNECT_TIMEOUT_MS = String(ms);
  try {
    return await fn();
  } finally {
    process.env.CONNECT_TIMEOUT_MS = String(HANG_GUARD_MS);
  }
}

const byName = (tests: ValidationTest[], name: string) => tests.find((t) => t.name === name);

describe('accessKey', () => {
  it('obtains cluster credentials with the signed key and connects to PostgreSQL as the returned user', async () => {
    const { tests, basic } = await validate(
      payload(accessKey(ACCESS_KEY.secret, ACCESS_KEY.token), provisioned),
    );
    expect(basic).toMatchObject({ name: 'Initial Validation: Basic Connection Test', status: 'passed' });
    expect(seen.credentials).toEqual([
      {
        action: 'GetClusterCredentials',
        params: expect.objectContaining({
          ClusterIdentifier: CLUSTER,
          DbUser: 'svc_iam',
          DbName: 'postgres',
          AutoCreate: 'false',
        }),
        signedBy: ACCESS_KEY.id,
        token: ACCESS_KEY.token,
      },
    ]);
    // Connected as IAM:svc_iam (CREATEDB, no CREATEROLE), not as a privileged account.
    expect(byName(tests, 'Validate Automatic Bootstrap User Grants')).toMatchObject({
      status: 'failed',
      message: 'the user lacks rights needed for automatic setup: CREATEUSER',
    });
  });

  it('works for a serverless workgroup (GetCredentials)', async () => {
    const { basic } = await validate(
      payload(accessKey(), `sslmode=disable&workgroup=${WORKGROUP}&region=${REGION}`),
    );
    expect(basic).toMatchObject({ status: 'passed' });
    expect(seen.credentials).toEqual([
      {
        action: 'GetCredentials',
        params: { workgroupName: WORKGROUP, dbName: 'postgres', durationSeconds: 900 },
        signedBy: ACCESS_KEY.id,
      },
    ]);
  });

  it('a wrong secret key is an authentication failure naming the API, not the key', async () => {
    const { basic } = await validate(payload(accessKey(`wrong-${randomUUID()}`), provisioned));
    expect(basic).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(
        /^Redshift GetClusterCredentials refused the credentials \(SignatureDoesNotMatch\) for cluster test-cluster: check accessKeyId, secretKey/,
      ),
    });
    expect(seen.issuedPasswords).toEqual([]);
  });

  it('an unknown cluster is reported as such', async () => {
    const { basic } = await validate(
      payload(accessKey(), `sslmode=disable&clusterIdentifier=other-cluster&region=${REGION}`),
    );
    expect(basic).toMatchObject({
      status: 'failed',
      message: 'cluster other-cluster was not found in region us-east-1',
    });
  });

  it('a host that names no cluster fails clearly without any call', async () => {
    const { basic } = await validate(payload(accessKey(), 'sslmode=disable'));
    expect(basic).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/need the cluster and region: 127\.0\.0\.1 is not a/),
    });
    expect(seen.credentials).toEqual([]);
  });

  it('a credential API that never answers times out within the connect timeout', async () => {
    behaviour.awsHang = true;
    const { basic, ms } = await withConnectTimeout(TIMEOUT_MS, () =>
      validate(payload(accessKey(), provisioned)),
    );
    expect(basic).toMatchObject({
      status: 'failed',
      message: `Redshift GetClusterCredentials: connecting to 127.0.0.1:${aws.port} timed out after ${TIMEOUT_MS} ms`,
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it('a refused credential API endpoint is a failed test naming it', async () => {
    const { basic } = await validate(payload(accessKey(), provisioned), {
      awsEndpoint: `http://127.0.0.1:${refusedPort}`,
    });
    expect(basic).toMatchObject({
      status: 'failed',
      message: `Redshift GetClusterCredentials: 127.0.0.1:${refusedPort} refused the connection (nothing is listening on that port)`,
    });
  });
});

describe('idp', () => {
  it('runs authn → SAML → AssumeRoleWithSAML → GetClusterCredentials → PostgreSQL', async () => {
    const { tests, basic } = await validate(payload(idpAuth(), provisioned));
    expect(basic).toMatchObject({ status: 'passed' });
    expect(seen.authn).toBe(1);
    expect(seen.saml).toBe(1);
    expect(seen.sts).toEqual([
      expect.objectContaining({ RoleArn: IDP.role, PrincipalArn: PROVIDER, DurationSeconds: '900' }),
    ]);
    // The cluster credentials were requested with the temporary keys of the role.
    expect(seen.credentials).toEqual([
      {
        action: 'GetClusterCredentials',
        params: expect.objectContaining({ ClusterIdentifier: CLUSTER, DbUser: 'svc_iam' }),
        signedBy: TEMP_KEY.id,
        token: TEMP_KEY.token,
      },
    ]);
    expect(byName(tests, 'Validate Automatic Bootstrap User Grants')?.message).toBe(
      'the user lacks rights needed for automatic setup: CREATEUSER',
    );
  });

  it('a wrong IdP password is a failed connection test with an authentication message', async () => {
    const { basic } = await validate(payload(idpAuth(`wrong-${randomUUID()}`), provisioned));
    expect(basic).toMatchObject({
      name: 'Initial Validation: Basic Connection Test',
      status: 'failed',
      message:
        'authentication at the identity provider idp.example.test failed: check the idp username and password',
    });
    expect(seen.saml).toBe(0);
    expect(seen.sts).toEqual([]);
  });

  it('an assertion that does not offer the configured role fails before STS', async () => {
    behaviour.roles = [`arn:aws:iam::123456789012:role/Other,${PROVIDER}`];
    const { basic } = await validate(payload(idpAuth(), provisioned));
    expect(basic).toMatchObject({
      status: 'failed',
      message: `the SAML assertion from idp.example.test does not offer role ${IDP.role}`,
    });
    expect(seen.sts).toEqual([]);
  });

  it('an unreachable identity provider is reported at the IdP host, in bounded time', async () => {
    const { basic, ms } = await withConnectTimeout(TIMEOUT_MS, () =>
      validate(payload(idpAuth(), provisioned), {
        awsEndpoint: aws.origin,
        idpOrigin: `http://127.0.0.1:${refusedPort}`,
      }),
    );
    expect(basic).toMatchObject({
      status: 'failed',
      message: `identity provider sign-in: idp.example.test:${refusedPort} refused the connection (nothing is listening on that port)`,
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 1500);
  });
});
