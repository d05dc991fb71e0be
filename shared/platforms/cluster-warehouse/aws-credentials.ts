/**
 * The AWS calls of the temporary-credential exchange (`iam-auth.ts`): Redshift
 * `GetClusterCredentials` / Redshift Serverless `GetCredentials` for the database login, and STS
 * `AssumeRoleWithSAML` for the idp type's temporary keys. The SDK clients are imported
 * dynamically, built with explicit keys (never the ambient chain) and destroyed after the call.
 */

import { withoutSdkLogging } from '../../config/sdk-clients';
import { ConnectionFailure } from '../driver';
import { type Budget, bounded, type ClusterAuthOptions, type Step } from './exchange';
import { type ClusterEndpoint, samlProviderFor } from './federation';

export interface DatabaseLogin {
  user: string;
  password: string;
}

export interface AwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
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
export async function databaseLogin(
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
        const client = withoutSdkLogging(
          new RedshiftServerlessClient(clientConfig(endpoint.region, keys, options, ms)),
        );
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
      const client = withoutSdkLogging(new RedshiftClient(clientConfig(endpoint.region, keys, options, ms)));
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

/** idp step 3: the assertion → temporary AWS keys for the configured role it offers. */
export async function assumeRoleWithSaml(
  idp: { idpHost: string; role: string },
  samlResponse: string,
  attributes: Map<string, string[]>,
  region: string,
  options: ClusterAuthOptions,
  budget: Budget,
): Promise<AwsKeys> {
  const principalArn = samlProviderFor(attributes, idp.role);
  if (!principalArn)
    throw new ConnectionFailure(
      'authentication',
      'role',
      `the SAML assertion from ${idp.idpHost} does not offer role ${idp.role}`,
    );
  const sts = { ...endpointOrigin(options, 'sts', region), label: 'STS AssumeRoleWithSAML' };
  const ms = budget.next();
  return bounded(
    sts,
    budget,
    async (abortSignal) => {
      const { STSClient, AssumeRoleWithSAMLCommand } = await import('@aws-sdk/client-sts');
      const client = withoutSdkLogging(new STSClient(clientConfig(region, undefined, options, ms)));
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
}
