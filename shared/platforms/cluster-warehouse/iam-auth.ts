/**
 * Temporary database credentials for the ClusterWarehouse access-key and idp authentication
 * types, obtained the way Redshift's own drivers do:
 *
 * - accessKey: Redshift `GetClusterCredentials` (provisioned cluster) or Redshift Serverless
 *   `GetCredentials` (workgroup), signed with the configured access key;
 * - idp (Okta-style federation with `idp_host` + `app_id`): username/password at
 *   `https://<idpHost>/api/v1/authn` → session token → the app's SAML response
 *   (`/app/amazon_aws/<appId>/sso/saml`) → STS `AssumeRoleWithSAML` for the configured role →
 *   the same credential call with the temporary keys.
 *
 * The AWS SDK clients are imported dynamically, only when one of these types connects. Every
 * step is bounded by CONNECT_TIMEOUT_MS and the whole exchange by three times that; every
 * failure becomes a `ConnectionFailure` whose `detail` names the step, the host and configured
 * names (cluster, role, app), never a secret, a token or a raw remote error text.
 */
import {
  ConnectionFailure,
  classifyNetworkError,
  connectTimeoutMs,
  describeFailure,
  type FailureReason,
  withTimeout,
} from '../driver';
import {
  type ClusterEndpoint,
  clusterEndpoint,
  redshiftIdentity,
  samlAttributes,
  samlProviderFor,
  samlResponseFromHtml,
} from './federation';

export interface ClusterAuthOptions {
  /**
   * Tests only: one endpoint (a loopback fake) for the Redshift, Redshift Serverless and STS
   * APIs. Production leaves it unset: the SDK's regional endpoints are used.
   */
  awsEndpoint?: string;
  /**
   * Tests only: the origin (`http://127.0.0.1:<port>`) replacing `https://<idpHost>`.
   * Production leaves it unset: the identity provider is always reached over https.
   */
  idpOrigin?: string;
}

export interface AccessKeyCredentials {
  authenticationType: 'accessKey';
  databaseUser: string;
  accessKeyId: string;
  secretKey: string;
  sessionToken?: string;
}

export interface IdpCredentials {
  authenticationType: 'idp';
  idp: { username: string; password: string; appId: string; idpHost: string; role: string };
}

export interface DatabaseLogin {
  user: string;
  password: string;
}

interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

interface Step {
  label: string;
  host: string;
  port: number;
}

/** Time left for the exchange: each step gets CONNECT_TIMEOUT_MS, all of them together 3×. */
class Budget {
  private readonly end: number;
  constructor(private readonly perStep = connectTimeoutMs()) {
    this.end = Date.now() + 3 * perStep;
  }
  next(): number {
    return Math.max(1, Math.min(this.perStep, this.end - Date.now()));
  }
}

/** A reason for a transport-level error (fetch or SDK), defaulting to `other`. */
function transportReason(error: unknown): FailureReason {
  const e = error as { name?: string; cause?: unknown };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  return classifyNetworkError(e?.cause) ?? classifyNetworkError(error) ?? 'other';
}

/** Runs one step within the budget; unclassified failures are described at the step's host. */
async function bounded<T>(
  step: Step,
  budget: Budget,
  run: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => ConnectionFailure | undefined = () => undefined,
): Promise<T> {
  const controller = new AbortController();
  try {
    return await withTimeout(run(controller.signal), budget.next());
  } catch (error) {
    controller.abort();
    if (error instanceof ConnectionFailure && error.detail) throw error;
    const specific = error instanceof ConnectionFailure ? undefined : classify(error);
    if (specific) throw specific;
    const reason = error instanceof ConnectionFailure ? error.reason : transportReason(error);
    throw new ConnectionFailure(
      reason,
      step.label,
      `${step.label}: ${describeFailure(reason, step.host, step.port)}`,
    );
  }
}

const SAFE_CODE = /^[A-Za-z][A-Za-z0-9.]{0,63}$/;
const codeOf = (error: unknown) => {
  const name = String((error as { name?: string })?.name ?? '');
  return SAFE_CODE.test(name) ? name : 'error';
};

const AWS_AUTH_CODES = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AuthFailure',
  'ExpiredToken',
  'ExpiredTokenException',
  'IDPRejectedClaim',
  'IDPRejectedClaimException',
  'IncompleteSignature',
  'InvalidAccessKeyId',
  'InvalidClientTokenId',
  'InvalidIdentityToken',
  'InvalidIdentityTokenException',
  'MissingAuthenticationToken',
  'SignatureDoesNotMatch',
  'UnauthorizedOperation',
  'UnrecognizedClientException',
  'UnsupportedOperation',
]);
const NOT_FOUND_CODES = new Set(['ClusterNotFound', 'ClusterNotFoundFault', 'ResourceNotFoundException']);

function endpointOrigin(options: ClusterAuthOptions, service: string, region: string): Step {
  if (options.awsEndpoint) {
    const url = new URL(options.awsEndpoint);
    return {
      label: '',
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
  }
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return { label: '', host: `${service}.${region}.${suffix}`, port: 443 };
}

function clientConfig(region: string, keys: AwsKeys | undefined, options: ClusterAuthOptions, ms: number) {
  return {
    region,
    maxAttempts: 1,
    ...(options.awsEndpoint ? { endpoint: options.awsEndpoint } : {}),
    // Explicit keys (or none, for AssumeRoleWithSAML): never the ambient credential chain.
    credentials: keys ?? { accessKeyId: 'anonymous', secretAccessKey: 'anonymous' },
    requestHandler: { connectionTimeout: ms, requestTimeout: ms },
  };
}

/** GetClusterCredentials / GetCredentials with the given keys → the login pg uses. */
async function databaseLogin(
  endpoint: ClusterEndpoint,
  keys: AwsKeys,
  request: { dbUser: string; dbName?: string; dbGroups?: string[]; autoCreate?: boolean },
  authHint: string,
  options: ClusterAuthOptions,
  budget: Budget,
): Promise<DatabaseLogin> {
  const ms = budget.next();
  const isServerless = endpoint.kind === 'serverless';
  const api = endpointOrigin(options, isServerless ? 'redshift-serverless' : 'redshift', endpoint.region);
  const step: Step = {
    ...api,
    label: isServerless ? 'Redshift Serverless GetCredentials' : 'Redshift GetClusterCredentials',
  };
  const what =
    endpoint.kind === 'serverless'
      ? `workgroup ${endpoint.workgroup}`
      : `cluster ${endpoint.clusterIdentifier}`;
  const classify = (error: unknown) => {
    const code = codeOf(error);
    if (AWS_AUTH_CODES.has(code))
      return new ConnectionFailure(
        'authentication',
        code,
        `${step.label} refused the credentials (${code}) for ${what}: ${authHint}`,
      );
    if (NOT_FOUND_CODES.has(code))
      return new ConnectionFailure('database', code, `${what} was not found in region ${endpoint.region}`);
    const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
    if (status !== undefined)
      return new ConnectionFailure(
        'other',
        code,
        `${step.label} failed for ${what} (${code}, HTTP ${status}) at ${step.host}`,
      );
    return undefined;
  };
  const result = await bounded(
    step,
    budget,
    async (abortSignal) => {
      if (endpoint.kind === 'serverless') {
        const { RedshiftServerlessClient, GetCredentialsCommand } = await import(
          '@aws-sdk/client-redshift-serverless'
        );
        const client = new RedshiftServerlessClient(clientConfig(endpoint.region, keys, options, ms));
        try {
          const out = await client.send(
            new GetCredentialsCommand({
              workgroupName: endpoint.workgroup,
              ...(request.dbName ? { dbName: request.dbName } : {}),
              durationSeconds: 900,
            }),
            { abortSignal },
          );
          return { user: out.dbUser, password: out.dbPassword };
        } finally {
          client.destroy();
        }
      }
      const { RedshiftClient, GetClusterCredentialsCommand } = await import('@aws-sdk/client-redshift');
      const client = new RedshiftClient(clientConfig(endpoint.region, keys, options, ms));
      try {
        const out = await client.send(
          new GetClusterCredentialsCommand({
            ClusterIdentifier: endpoint.clusterIdentifier,
            DbUser: request.dbUser,
            ...(request.dbName ? { DbName: request.dbName } : {}),
            ...(request.dbGroups && request.dbGroups.length > 0 ? { DbGroups: request.dbGroups } : {}),
            AutoCreate: request.autoCreate ?? false,
            DurationSeconds: 900,
          }),
          { abortSignal },
        );
        return { user: out.DbUser, password: out.DbPassword };
      } finally {
        client.destroy();
      }
    },
    classify,
  );
  if (!result.user || !result.password)
    throw new ConnectionFailure('other', 'empty', `${step.label} returned no credentials for ${what}`);
  return { user: result.user, password: result.password };
}

function requireEndpoint(host: string, connectArgs: string | undefined): ClusterEndpoint {
  const endpoint = clusterEndpoint(host, connectArgs);
  if (!endpoint)
    throw new ConnectionFailure(
      'other',
      'endpoint',
      `access-key and idp authentication need the cluster and region: ${host} is not a ` +
        '<cluster>.<id>.<region>.redshift.amazonaws.com or ' +
        '<workgroup>.<account>.<region>.redshift-serverless.amazonaws.com host; name them in ' +
        'connectArgs (clusterIdentifier=…&region=… or workgroup=…&region=…)',
    );
  return endpoint;
}

/** accessKey: temporary credentials for `databaseUser`, signed with the configured keys. */
export async function accessKeyLogin(
  creds: AccessKeyCredentials,
  target: { host: string; database?: string; connectArgs?: string },
  options: ClusterAuthOptions = {},
): Promise<DatabaseLogin> {
  const endpoint = requireEndpoint(target.host, target.connectArgs);
  return databaseLogin(
    endpoint,
    {
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretKey,
      ...(creds.sessionToken ? { sessionToken: creds.sessionToken } : {}),
    },
    { dbUser: creds.databaseUser, dbName: target.database },
    'check accessKeyId, secretKey and sessionToken, and that the key may call the credential API',
    options,
    new Budget(),
  );
}

async function readJson(response: Response): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await response.json();
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** idp: Okta authn → SAML response → AssumeRoleWithSAML → the cluster's credential call. */
export async function idpLogin(
  creds: IdpCredentials,
  target: { host: string; database?: string; connectArgs?: string },
  options: ClusterAuthOptions = {},
): Promise<DatabaseLogin> {
  const endpoint = requireEndpoint(target.host, target.connectArgs);
  const idp = creds.idp;
  const budget = new Budget();
  const origin = options.idpOrigin ?? `https://${idp.idpHost}`;
  const idpUrl = new URL(origin);
  const idpStep = (label: string): Step => ({
    label,
    host: idp.idpHost,
    port: Number(idpUrl.port || (idpUrl.protocol === 'https:' ? 443 : 80)),
  });

  // 1. Username and password → a one-time session token.
  const authn = idpStep('identity provider sign-in');
  const sessionToken = await bounded(authn, budget, async (signal) => {
    const response = await fetch(new URL('/api/v1/authn', origin), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ username: idp.username, password: idp.password }),
      redirect: 'error',
      signal,
    });
    const body = await readJson(response);
    if (response.status === 401 || response.status === 403)
      throw new ConnectionFailure(
        'authentication',
        'authn',
        `authentication at the identity provider ${idp.idpHost} failed: check the idp username and password`,
      );
    if (!response.ok)
      throw new ConnectionFailure(
        'other',
        'authn',
        `the identity provider ${idp.idpHost} answered the sign-in with HTTP ${response.status}`,
      );
    const status = typeof body.status === 'string' && /^[A-Z_]{1,40}$/.test(body.status) ? body.status : '';
    if (status !== 'SUCCESS' || typeof body.sessionToken !== 'string' || body.sessionToken.length === 0)
      throw new ConnectionFailure(
        'authentication',
        'authn',
        `the identity provider ${idp.idpHost} did not complete the sign-in${status ? ` (status ${status})` : ''}: ` +
          'the service signs in with username and password only (no MFA or password change)',
      );
    return body.sessionToken;
  });

  // 2. The session token → the app's SAML response (the auto-submitting form's field).
  const samlStep = idpStep('identity provider SAML response');
  const samlResponse = await bounded(samlStep, budget, async (signal) => {
    const url = new URL(`/app/amazon_aws/${encodeURIComponent(idp.appId)}/sso/saml`, origin);
    url.searchParams.set('sessionToken', sessionToken);
    const response = await fetch(url, { headers: { accept: 'text/html' }, redirect: 'error', signal });
    const html = response.ok ? await response.text() : '';
    const value = samlResponseFromHtml(html);
    if (!value)
      throw new ConnectionFailure(
        'authentication',
        'saml',
        `the identity provider ${idp.idpHost} returned no SAML response for app ${idp.appId}` +
          `${response.ok ? '' : ` (HTTP ${response.status})`}: check appId and that the user is assigned to the app`,
      );
    return value;
  });

  const attributes = samlAttributes(samlResponse);
  const principalArn = samlProviderFor(attributes, idp.role);
  if (!principalArn)
    throw new ConnectionFailure(
      'authentication',
      'role',
      `the SAML assertion from ${idp.idpHost} does not offer role ${idp.role}`,
    );

  // 3. The assertion → temporary AWS keys for the role.
  const sts = { ...endpointOrigin(options, 'sts', endpoint.region), label: 'STS AssumeRoleWithSAML' };
  const ms = budget.next();
  const keys = await bounded(
    sts,
    budget,
    async (abortSignal) => {
      const { STSClient, AssumeRoleWithSAMLCommand } = await import('@aws-sdk/client-sts');
      const client = new STSClient(clientConfig(endpoint.region, undefined, options, ms));
      try {
        const out = await client.send(
          new AssumeRoleWithSAMLCommand({
            RoleArn: idp.role,
            PrincipalArn: principalArn,
            SAMLAssertion: samlResponse,
            DurationSeconds: 900,
          }),
          { abortSignal },
        );
        const c = out.Credentials;
        if (!c?.AccessKeyId || !c.SecretAccessKey)
          throw new ConnectionFailure(
            'other',
            'sts',
            `STS AssumeRoleWithSAML returned no credentials at ${sts.host}`,
          );
        return {
          accessKeyId: c.AccessKeyId,
          secretAccessKey: c.SecretAccessKey,
          ...(c.SessionToken ? { sessionToken: c.SessionToken } : {}),
        };
      } finally {
        client.destroy();
      }
    },
    (error) => {
      const code = codeOf(error);
      if (AWS_AUTH_CODES.has(code) || /^(InvalidParameter|ValidationError|MalformedPolicy)/.test(code))
        return new ConnectionFailure(
          'authentication',
          code,
          `STS refused the SAML assertion for role ${idp.role} (${code}): check the role's trust policy and the SAML provider`,
        );
      return undefined;
    },
  );

  // 4. The temporary keys → database credentials.
  const identity = redshiftIdentity(attributes, idp.username);
  return databaseLogin(
    endpoint,
    keys,
    {
      dbUser: identity.dbUser,
      dbName: target.database,
      dbGroups: identity.dbGroups,
      autoCreate: identity.autoCreate,
    },
    `check that role ${idp.role} may call the credential API for this user`,
    options,
    budget,
  );
}
