/**
 * CloudWarehouse `oAuth` authentication: an access token from the OAuth 2.0 client-credentials
 * grant at `authorityUrl` (RFC 6749 §4.4), authenticating the client with its secret or with a
 * signed JWT client assertion (RFC 7523; RS256, `x5t` = the certificate thumbprint), then used
 * as the session's External OAuth token (`authenticator: 'OAUTH'`).
 *
 * `resource` (the spec leaves its meaning to the provider):
 * - Microsoft Entra ID / Azure AD (`provider` contains azure, entra or microsoft): a v2.0
 *   endpoint (`…/oauth2/v2.0/token`) gets `scope=<resource>/.default` (kept as is when it
 *   already ends in `/.default`); a v1 endpoint gets `resource=<resource>`;
 * - any other provider (Okta, Ping, a custom authorization server): `scope=<resource>`
 *   (space-separated scopes, e.g. `session:role:ANALYST`);
 * - no `resource`: neither parameter is sent.
 *
 * The token call is bounded by CONNECT_TIMEOUT_MS, never follows redirects, and only goes to
 * an https URL (a loopback http URL only when the caller passes `allowHttpLoopbackAuthority`,
 * which only tests do). Failures are `ConnectionFailure`s whose detail names the token host
 * and the OAuth error code, never the secret, the key, the assertion or the token.
 */
import { createPrivateKey, createSign, type KeyObject, randomUUID } from 'node:crypto';
import { ConnectionFailure, classifyNetworkError, connectTimeoutMs, describeFailure } from '../driver';

export interface OAuthClientConfig {
  provider: string;
  clientId: string;
  authorityUrl: string;
  useCertificate: boolean;
  publicCertificateThumbprint?: string;
  oauthPrivateKey?: string;
  clientSecret?: string;
  resource?: string;
}

export interface OAuthOptions {
  /**
   * Tests only: accept an `http://` authority on a loopback address (127.0.0.1, ::1,
   * localhost), where a test runs its token endpoint. Never set by the service itself.
   */
  allowHttpLoopbackAuthority?: boolean;
}

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ASSERTION_LIFETIME_S = 300;

/**
 * The JWT `x5t` header for a certificate thumbprint: hex (as portals show it, colons and
 * spaces allowed) → its bytes in base64url; a value already in base64/base64url is
 * normalised to unpadded base64url. Undefined for anything else.
 */
export function thumbprintX5t(thumbprint: string): string | undefined {
  const compact = thumbprint.trim().replace(/[\s:]/g, '');
  if (/^(?:[0-9a-fA-F]{2}){20,64}$/.test(compact)) return Buffer.from(compact, 'hex').toString('base64url');
  if (/^[A-Za-z0-9+/_-]{20,}={0,2}$/.test(compact))
    return compact.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  return undefined;
}

function rsaKey(pem: string): KeyObject | undefined {
  try {
    const key = createPrivateKey(pem.replaceAll('\\n', '\n'));
    return key.asymmetricKeyType === 'rsa' ? key : undefined;
  } catch {
    return undefined;
  }
}

const b64json = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The signed client assertion (RS256) for the certificate flow. */
export function clientAssertion(config: OAuthClientConfig, nowMs = Date.now()): string {
  const x5t = thumbprintX5t(config.publicCertificateThumbprint ?? '');
  if (!x5t)
    throw new ConnectionFailure(
      'authentication',
      'thumbprint',
      'the OAuth certificate thumbprint (publicCertificateThumbprint) is neither hex nor base64',
    );
  const key = rsaKey(config.oauthPrivateKey ?? '');
  if (!key)
    throw new ConnectionFailure(
      'authentication',
      'key',
      'the OAuth private key (oauthPrivateKey) is not a readable, unencrypted RSA private key',
    );
  const now = Math.floor(nowMs / 1000);
  const header = b64json({ alg: 'RS256', typ: 'JWT', x5t });
  const claims = b64json({
    aud: config.authorityUrl,
    iss: config.clientId,
    sub: config.clientId,
    jti: randomUUID(),
    iat: now,
    nbf: now,
    exp: now + ASSERTION_LIFETIME_S,
  });
  const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key, 'base64url');
  return `${header}.${claims}.${signature}`;
}

const isMicrosoft = (provider: string) => /azure|entra|microsoft/i.test(provider);

/** The form body of the client-credentials request. */
export function tokenRequestBody(config: OAuthClientConfig, nowMs = Date.now()): URLSearchParams {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: config.clientId });
  if (config.useCertificate) {
    body.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
    body.set('client_assertion', clientAssertion(config, nowMs));
  } else body.set('client_secret', config.clientSecret ?? '');
  const resource = config.resource?.trim();
  if (resource) {
    if (!isMicrosoft(config.provider)) body.set('scope', resource);
    else if (/\/v2\.0\//.test(new URL(config.authorityUrl).pathname))
      body.set(
        'scope',
        resource.endsWith('/.default') ? resource : `${resource.replace(/\/+$/, '')}/.default`,
      );
    else body.set('resource', resource);
  }
  return body;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function authorityOf(config: OAuthClientConfig, options: OAuthOptions): URL {
  let url: URL;
  try {
    url = new URL(config.authorityUrl);
  } catch {
    throw new ConnectionFailure('other', 'authority', 'the OAuth authority URL is not a valid URL');
  }
  const loopbackHttp =
    options.allowHttpLoopbackAuthority === true && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !loopbackHttp)
    throw new ConnectionFailure('other', 'authority', 'the OAuth authority URL must use https');
  if (url.username || url.password)
    throw new ConnectionFailure('other', 'authority', 'the OAuth authority URL must not carry credentials');
  return url;
}

/** Obtains an access token by the client-credentials grant, within CONNECT_TIMEOUT_MS. */
export async function fetchAccessToken(
  config: OAuthClientConfig,
  options: OAuthOptions = {},
): Promise<string> {
  const url = authorityOf(config, options);
  const host = url.hostname;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const body = tokenRequestBody(config);
  const credential = config.useCertificate ? 'certificate (thumbprint and private key)' : 'client secret';
  const signal = AbortSignal.timeout(connectTimeoutMs());
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'error',
      signal,
    });
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = await response.json();
      if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      json = {};
    }
    const code =
      typeof json.error === 'string' && /^[a-z_]{1,64}$/.test(json.error) ? ` (${json.error})` : '';
    if (response.status === 400 || response.status === 401 || response.status === 403)
      throw new ConnectionFailure(
        'authentication',
        'token',
        `the OAuth token endpoint ${host} refused the client credentials${code}: check clientId, the ${credential} and resource`,
      );
    if (!response.ok)
      throw new ConnectionFailure(
        'other',
        'token',
        `the OAuth token endpoint ${host} answered HTTP ${response.status}${code}`,
      );
    const token = json.access_token;
    if (typeof token !== 'string' || token.length === 0)
      throw new ConnectionFailure(
        'authentication',
        'token',
        `the OAuth token endpoint ${host} returned no access token`,
      );
    return token;
  } catch (error) {
    if (error instanceof ConnectionFailure) throw error;
    const e = error as { name?: string; cause?: unknown };
    const reason =
      e?.name === 'TimeoutError' || e?.name === 'AbortError'
        ? 'timeout'
        : (classifyNetworkError(e?.cause) ?? classifyNetworkError(error) ?? 'other');
    throw new ConnectionFailure(
      reason,
      'token',
      `OAuth token endpoint: ${describeFailure(reason, host, port)}`,
    );
  }
}
