import * as z from 'zod';
import { accountPassword, accountUsername, hostname, identifier, port, secret, text } from '../fields';

const ClusterIdpSchema = z.strictObject({
  username: text(128).describe('identity provider user (write-only)'),
  password: secret(1024).describe('identity provider password (write-only)'),
  appId: text(255).describe('application id at the identity provider'),
  idpHost: hostname().describe('hostname of the identity provider'),
  role: text(2048).describe('ARN of the role the identity provider grants'),
});

const base = {
  host: hostname().describe('hostname of the cluster endpoint (no scheme, port or path)'),
  database: identifier(127).describe('new, empty database the service account manages'),
  initialDatabase: identifier(127)
    .optional()
    .describe(
      'existing database an automatic setup first connects to, to create the managed database (required with automatic setup)',
    ),
  port: port(5439).describe('TCP port of the cluster'),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false).describe('true: the service creates the impersonation role'),
      role: identifier(127).default('service_impersonation').describe('name of the impersonation role'),
    })
    .default({ enabled: false, role: 'service_impersonation' })
    .describe('a role the service creates to run queries on behalf of users'),
  connectArgs: z.string().max(2048).optional().describe('driver connection-string arguments'),
};

const userPassword = {
  authenticationType: z.literal('userPassword'),
  username: accountUsername(128),
  password: accountPassword(),
};
const accessKey = {
  authenticationType: z.literal('accessKey'),
  databaseUser: text(128).describe('database user the access key signs in as'),
  accessKeyId: text(128).describe('access key id of the cloud identity'),
  secretKey: secret(1024).describe('secret access key of that identity (write-only)'),
  sessionToken: secret(4096).optional().describe('session token, for temporary credentials (write-only)'),
};
const idp = {
  authenticationType: z.literal('idp'),
  idp: ClusterIdpSchema.describe('sign-in through an identity provider'),
};

export const ClusterWarehouseConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, ...userPassword }),
  z.strictObject({ ...base, ...accessKey }),
  z.strictObject({ ...base, ...idp }),
]);
export type ClusterWarehouseConfig = z.infer<typeof ClusterWarehouseConfigSchema>;

/** Privileged credentials for deleting an automatically bootstrapped integration. */
export const ClusterWarehouseDeleteSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject(userPassword),
  z.strictObject(accessKey),
  z.strictObject(idp),
]);
