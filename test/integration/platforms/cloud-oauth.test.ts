/**
 * CloudWarehouse oAuth end to end up to the session: a loopback token endpoint that checks the
 * client-credentials request (verifying the JWT client assertion's signature with the public
 * key, or the client secret) and issues a token; the driver then opens the session with
 * `authenticator: 'OAUTH'` and that token against a `.invalid` account host, which fails as
 * unreachable within the connect timeout (no warehouse is reachable from the tests).
 */
import { createHash, createVerify, generateKeyPairSync, randomUUID } from 'node:crypto';
import snowflake from 'snowflake-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCloudDriver } from '../../../shared/platforms/cloud-warehouse/driver';
import type { OAuthOptions } from '../../../shared/platforms/cloud-warehouse/oauth';
import { realConnector } from '../../../shared/platforms/connectors';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { PlatformPayload, ValidationTest } from '../../../shared/platforms/port';
import { sqlConnector } from '../../../shared/platforms/sql/connector';
import { type LoopbackServer, type ReceivedRequest, type Reply, startLoopback } from '../../support/loopback';

const TIMEOUT_MS = 1500;
const HOST = 'acct.no-such-host.invalid';
const CLIENT_ID = 'causeway-client';
const SECRET = `cs-${randomUUID()}`;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const THUMBPRINT = createHash('sha1').update('the certificate').digest('hex').toUpperCase();
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let tokenServer: LoopbackServer;
let received: { form: Record<string, string>; verdict: string }[];
let issued: string[];
let hang: boolean;

const json = (status: number, body: object): Reply => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Independent server-side check of an RFC 7523 client assertion. */
function assertionProblem(jwt: string, audience: string): string | undefined {
  const [header = '', claims = '', signature = ''] = jwt.split('.');
  const h = JSON.parse(Buffer.from(header, 'base64url').toString());
  const c = JSON.parse(Buffer.from(claims, 'base64url').toString());
  const now = Math.floor(Date.now() / 1000);
  if (!createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, signature, 'base64url'))
    return 'signature';
  if (h.alg !== 'RS256' || h.x5t !== Buffer.from(THUMBPRINT, 'hex').toString('base64url')) return 'header';
  if (c.aud !== audience || c.iss !== CLIENT_ID || c.sub !== CLIENT_ID) return 'claims';
  if (typeof c.jti !== 'string' || c.jti.length < 16) return 'jti';
  if (!(c.nbf <= now + 5 && c.exp > now && c.exp - c.nbf <= 600)) return 'validity';
  return undefined;
}

function tokenEndpoint(req: ReceivedRequest): Reply {
  if (hang) return { hang: true };
  const form = Object.fromEntries(new URLSearchParams(req.body));
  const audience = `${tokenServer.origin}${req.url.pathname}`;
  let verdict = 'ok';
  if (req.method !== 'POST' || form.grant_type !== 'client_credentials' || form.client_id !== CLIENT_ID)
    verdict = 'request';
  else if (form.client_assertion !== undefined) {
    if (form.client_assertion_type !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
      verdict = 'assertion type';
    else verdict = assertionProblem(form.client_assertion, audience) ?? 'ok';
  } else if (form.client_secret !== SECRET) verdict = 'secret';
  received.push({ form, verdict });
  if (verdict !== 'ok')
    return json(401, { error: 'invalid_client', error_description: `rejected: ${verdict}` });
  const token = `at-${randomUUID()}`;
  issued.push(token);
  return json(200, { access_token: token, token_type: 'Bearer', expires_in: 3599 });
}

beforeAll(async () => {
  process.env.CONNECT_TIMEOUT_MS = String(TIMEOUT_MS);
  tokenServer = await startLoopback(tokenEndpoint);
});
afterAll(async () => {
  delete process.env.CONNECT_TIMEOUT_MS;
  vi.restoreAllMocks();
  await tokenServer?.close();
});
beforeEach(() => {
  received = [];
  issued = [];
  hang = false;
});

type OAuthConfig = Record<string, unknown>;
const certificate = (over: OAuthConfig = {}): OAuthConfig => ({
  provider: 'azure',
  clientId: CLIENT_ID,
  useCertificate: true,
  publicCertificateThumbprint: THUMBPRINT,
  oauthPrivateKey: PEM.replaceAll('\n', '\\n'),
  resource: 'https://warehouse.example.com',
  ...over,
});
const secret = (value = SECRET): OAuthConfig => ({
  provider: 'okta',
  clientId: CLIENT_ID,
  useCertificate: false,
  clientSecret: value,
  resource: 'session:role-any',
});

/** A schema-valid payload (https authority), then pointed at the loopback token endpoint. */
function payload(oauth: OAuthConfig): PlatformPayload {
  const parsed = IntegrationPayloadSchema.parse({
    type: 'CloudWarehouse',
    autoBootstrap: false,
    config: {
      host: HOST,
      warehouse: 'wh',
      database: 'db',
      authenticationType: 'oAuth',
      oAuthClientConfig: { ...oauth, authorityUrl: 'https://login.example.com/tenant/oauth2/v2.0/token' },
    },
  });
  const config = (parsed as { config: { oAuthClientConfig: { authorityUrl: string } } }).config;
  config.oAuthClientConfig.authorityUrl = `${tokenServer.origin}/tenant/oauth2/v2.0/token`;
  return parsed as PlatformPayload;
}

const TEST_OPTIONS: OAuthOptions = { allowHttpLoopbackAuthority: true };

async function validate(p: PlatformPayload, options: OAuthOptions | 'production' = TEST_OPTIONS) {
  const connector =
    options === 'production'
      ? await realConnector('CloudWarehouse')
      : sqlConnector('CloudWarehouse', createCloudDriver(options));
  const started = Date.now();
  const tests = await connector.validate({ operation: 'create', payload: p });
  const text = JSON.stringify(tests);
  for (const value of [SECRET, PEM.slice(40, 120), ...issued]) expect(text).not.toContain(value);
  return { basic: tests[0] as ValidationTest, ms: Date.now() - started };
}

describe('CloudWarehouse oAuth', () => {
  it('certificate: the token endpoint receives a valid signed client assertion; the session uses the token', async () => {
    const createConnection = vi.spyOn(snowflake, 'createConnection');
    const { basic, ms } = await validate(payload(certificate()));
    expect(received).toEqual([
      {
        form: expect.objectContaining({
          grant_type: 'client_credentials',
          client_id: CLIENT_ID,
          scope: 'https://warehouse.example.com/.default',
        }),
        verdict: 'ok',
      },
    ]);
    expect(received[0]?.form.client_secret).toBeUndefined();
    expect(issued).toHaveLength(1);
    expect(createConnection).toHaveBeenCalledTimes(1);
    expect(createConnection.mock.calls[0]?.[0]).toMatchObject({
      accessUrl: `https://${HOST}:443`,
      authenticator: 'OAUTH',
      token: issued[0],
    });
    createConnection.mockRestore();
    // The account host does not resolve: unreachable, within the connect timeout.
    expect(basic).toMatchObject({
      name: 'Initial Validation: Basic Connection Test',
      status: 'failed',
      message: `could not reach ${HOST}:443 (unknown host or network unreachable)`,
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
  });

  it('client secret: the endpoint receives the secret and scope=<resource>', async () => {
    const { basic } = await validate(payload(secret()));
    expect(received).toEqual([
      {
        form: expect.objectContaining({ client_secret: SECRET, scope: 'session:role-any' }),
        verdict: 'ok',
      },
    ]);
    expect(basic).toMatchObject({ status: 'failed', message: expect.stringMatching(/^could not reach /) });
  });

  it('a 401 from the token endpoint is an authentication failure, and no session is attempted', async () => {
    const createConnection = vi.spyOn(snowflake, 'createConnection');
    const { basic } = await validate(payload(secret(`wrong-${randomUUID()}`)));
    expect(received.map((r) => r.verdict)).toEqual(['secret']);
    expect(basic).toMatchObject({
      status: 'failed',
      message:
        'the OAuth token endpoint 127.0.0.1 refused the client credentials (invalid_client): check clientId, the client secret and resource',
    });
    expect(createConnection).not.toHaveBeenCalled();
    createConnection.mockRestore();
  });

  it('an assertion signed with another key is refused by the endpoint: authentication failure', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const { basic } = await validate(payload(certificate({ oauthPrivateKey: other })));
    expect(received.map((r) => r.verdict)).toEqual(['signature']);
    expect(basic).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(
        /refused the client credentials \(invalid_client\): check clientId, the certificate/,
      ),
    });
  });

  it('a token endpoint that never answers times out within the connect timeout', async () => {
    hang = true;
    const { basic, ms } = await validate(payload(secret()));
    expect(basic).toMatchObject({
      status: 'failed',
      message: `OAuth token endpoint: connecting to 127.0.0.1:${tokenServer.port} timed out after ${TIMEOUT_MS} ms`,
    });
    expect(ms).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it('the production driver refuses the http authority: nothing is sent', async () => {
    const { basic } = await validate(payload(secret()), 'production');
    expect(basic).toMatchObject({ status: 'failed', message: 'the OAuth authority URL must use https' });
    expect(received).toEqual([]);
  });
});
