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
 *
 * This file composes the steps; `idp-signin.ts` holds the identity provider's two,
 * `aws-credentials.ts` the AWS calls and `exchange.ts` the budget every step runs in.
 */
import { ConnectionFailure } from '../driver';
import { assumeRoleWithSaml, type DatabaseLogin, databaseLogin } from './aws-credentials';
import { Budget, type ClusterAuthOptions } from './exchange';
import { type ClusterEndpoint, clusterEndpoint, redshiftIdentity, samlAttributes } from './federation';
import { appSamlResponse, type IdpSettings, idpSite, signIn } from './idp-signin';

export type { DatabaseLogin } from './aws-credentials';
export type { ClusterAuthOptions } from './exchange';

export interface AccessKeyCredentials {
  authenticationType: 'accessKey';
  databaseUser: string;
  accessKeyId: string;
  secretKey: string;
  sessionToken?: string;
}

export interface IdpCredentials {
  authenticationType: 'idp';
  idp: IdpSettings;
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

/**
 * idp: Okta sign-in → SAML response → AssumeRoleWithSAML → the cluster's credential call
 * (step 4, `databaseLogin`, as for accessKey but with the temporary keys and the identity the
 * assertion names).
 */
export async function idpLogin(
  creds: IdpCredentials,
  target: { host: string; database?: string; connectArgs?: string },
  options: ClusterAuthOptions = {},
): Promise<DatabaseLogin> {
  const endpoint = requireEndpoint(target.host, target.connectArgs);
  const idp = creds.idp;
  const budget = new Budget();
  const site = idpSite(idp, options);
  const sessionToken = await signIn(idp, site, budget);
  const samlResponse = await appSamlResponse(idp, site, sessionToken, budget);
  const attributes = samlAttributes(samlResponse);
  const keys = await assumeRoleWithSaml(idp, samlResponse, attributes, endpoint.region, options, budget);
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
