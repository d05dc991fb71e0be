/**
 * CloudWarehouse oAuth, pure parts: the JWT client assertion (verified with the public key),
 * the x5t thumbprint encoding, the token request body per provider, and the https rule.
 */
import { createHash, createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CLIENT_ASSERTION_TYPE,
  clientAssertion,
  fetchAccessToken,
  type OAuthClientConfig,
  thumbprintX5t,
  tokenRequestBody,
} from '../../../shared/platforms/cloud-warehouse/oauth';
import { ConnectionFailure } from '../../../shared/platforms/driver';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
// A thumbprint as portals show it: the SHA-1 of the certificate, in hex.
const THUMBPRINT = createHash('sha1').update('certificate bytes').digest('hex').toUpperCase();
const AUTHORITY = 'https://login.microsoftonline.com/tenant-id/oauth2/v2.0/token';

const certificateConfig = (over: Partial<OAuthClientConfig> = {}): OAuthClientConfig => ({
  provider: 'azure',
  clientId: 'client-123',
  authorityUrl: AUTHORITY,
  useCertificate: true,
  publicCertificateThumbprint: THUMBPRINT,
  // Stored configs carry the key with escaped new lines, like the keyPair private key.
  oauthPrivateKey: PEM.replaceAll('\n', '\\n'),
  ...over,
});

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

describe('thumbprintX5t', () => {
  it('turns a hex thumbprint (any case, colons or spaces) into base64url bytes', () => {
    const expected = Buffer.from(THUMBPRINT, 'hex').toString('base64url');
    expect(thumbprintX5t(THUMBPRINT)).toBe(expected);
    expect(thumbprintX5t(THUMBPRINT.toLowerCase().match(/../g)?.join(':') ?? '')).toBe(expected);
    expect(thumbprintX5t(` ${THUMBPRINT.match(/.{4}/g)?.join(' ')} `)).toBe(expected);
  });

  it('normalises a base64 thumbprint to unpadded base64url and refuses anything else', () => {
    const bytes = Buffer.from(THUMBPRINT, 'hex');
    expect(thumbprintX5t(bytes.toString('base64'))).toBe(bytes.toString('base64url'));
    expect(thumbprintX5t('not a thumbprint!')).toBeUndefined();
    expect(thumbprintX5t('abc')).toBeUndefined();
  });
});

describe('clientAssertion', () => {
  it('is an RS256 JWT with x5t, aud = authority, iss = sub = clientId, jti and a short validity, signed by the key', () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const jwt = clientAssertion(certificateConfig(), now);
    const [header = '', claims = '', signature = ''] = jwt.split('.');
    expect(decode(header)).toEqual({
      alg: 'RS256',
      typ: 'JWT',
      x5t: Buffer.from(THUMBPRINT, 'hex').toString('base64url'),
    });
    const body = decode(claims);
    const seconds = now / 1000;
    expect(body).toEqual({
      aud: AUTHORITY,
      iss: 'client-123',
      sub: 'client-123',
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: seconds,
      nbf: seconds,
      exp: seconds + 300,
    });
    expect(
      createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(publicKey, signature, 'base64url'),
    ).toBe(true);
    // Another key does not verify it; each assertion has its own jti.
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(
      createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(other, signature, 'base64url'),
    ).toBe(false);
    expect(decode(clientAssertion(certificateConfig(), now).split('.')[1] ?? '').jti).not.toBe(body.jti);
  });

  const failureOf = (fn: () => unknown): ConnectionFailure => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ConnectionFailure) return error;
      throw error;
    }
    throw new Error('expected a ConnectionFailure');
  };

  it('refuses an unreadable key or thumbprint with a message that quotes neither', () => {
    const badKey = failureOf(() =>
      clientAssertion(certificateConfig({ oauthPrivateKey: 'SECRET-NOT-A-KEY' })),
    );
    expect(badKey.reason).toBe('authentication');
    expect(badKey.detail).toMatch(/oauthPrivateKey\) is not a readable, unencrypted RSA private key/);
    expect(badKey.detail).not.toContain('SECRET-NOT-A-KEY');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    expect(
      failureOf(() => clientAssertion(certificateConfig({ oauthPrivateKey: ec.toString() }))).detail,
    ).toMatch(/RSA private key/);
    expect(
      failureOf(() => clientAssertion(certificateConfig({ publicCertificateThumbprint: '??' }))).detail,
    ).toMatch(/thumbprint \(publicCertificateThumbprint\) is neither hex nor base64/);
  });
});

describe('tokenRequestBody', () => {
  it('certificate flow: client assertion, no secret; Entra v2.0 gets scope=<resource>/.default', () => {
    const body = tokenRequestBody(certificateConfig({ resource: 'https://analytics.example.com' }));
    expect(body.get('grant_type')).toBe('client_credentials');
    expect(body.get('client_id')).toBe('client-123');
    expect(body.get('client_assertion_type')).toBe(CLIENT_ASSERTION_TYPE);
    expect(body.get('client_assertion')?.split('.')).toHaveLength(3);
    expect(body.has('client_secret')).toBe(false);
    expect(body.get('scope')).toBe('https://analytics.example.com/.default');
    expect(body.has('resource')).toBe(false);
    expect(tokenRequestBody(certificateConfig({ resource: 'api://x/.default' })).get('scope')).toBe(
      'api://x/.default',
    );
  });

  it('Entra v1 endpoint: resource=<resource>', () => {
    const body = tokenRequestBody(
      certificateConfig({
        provider: 'Microsoft Entra ID',
        authorityUrl: 'https://login.microsoftonline.com/t/oauth2/token',
        resource: 'https://analytics.example.com',
      }),
    );
    expect(body.get('resource')).toBe('https://analytics.example.com');
    expect(body.has('scope')).toBe(false);
  });

  it('secret flow with another provider: client_secret and scope=<resource>; no resource → neither', () => {
    const config: OAuthClientConfig = {
      provider: 'okta',
      clientId: 'c',
      authorityUrl: 'https://corp.okta.com/oauth2/default/v1/token',
      useCertificate: false,
      clientSecret: 's3cret',
      resource: 'session:role:ANALYST',
    };
    const body = tokenRequestBody(config);
    expect(body.get('client_secret')).toBe('s3cret');
    expect(body.has('client_assertion')).toBe(false);
    expect(body.get('scope')).toBe('session:role:ANALYST');
    const bare = tokenRequestBody({ ...config, resource: undefined });
    expect(bare.has('scope') || bare.has('resource')).toBe(false);
  });
});

describe('authority URL rule', () => {
  const secretConfig = (authorityUrl: string): OAuthClientConfig => ({
    provider: 'okta',
    clientId: 'c',
    authorityUrl,
    useCertificate: false,
    clientSecret: 's',
  });

  it('refuses http authorities without the test option, and non-loopback http even with it', async () => {
    await expect(fetchAccessToken(secretConfig('http://127.0.0.1:9/token'))).rejects.toMatchObject({
      reason: 'other',
      detail: 'the OAuth authority URL must use https',
    });
    await expect(
      fetchAccessToken(secretConfig('http://idp.example.com/token'), { allowHttpLoopbackAuthority: true }),
    ).rejects.toMatchObject({ detail: 'the OAuth authority URL must use https' });
    await expect(
      fetchAccessToken(secretConfig('https://user:pw@idp.example.com/token')),
    ).rejects.toMatchObject({ detail: 'the OAuth authority URL must not carry credentials' });
  });
});
