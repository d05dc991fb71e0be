import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { described } from '../../schema-meta';
import {
  accountPassword,
  accountUsername,
  hostname,
  identifier,
  impersonation,
  port,
  secret,
  text,
} from '../fields';

/**
 * The type's schemas, built the first time the type is asked for them (ADR 0021): a function
 * builds the schemas of the types it meets, not of all seven at init.
 */
export const clusterWarehouseSchemas = lazySchema(() => {
  const ClusterIdpSchema = z.strictObject({
    username: described(text(128), 'identity provider user (write-only)'),
    password: described(secret(1024), 'identity provider password (write-only)'),
    appId: described(text(255), 'application id at the identity provider'),
    idpHost: described(hostname(), 'hostname of the identity provider'),
    role: described(text(2048), 'ARN of the role the identity provider grants'),
  });

  const base = {
    host: described(hostname(), 'hostname of the cluster endpoint (no scheme, port or path)'),
    database: described(identifier(127), 'new, empty database the service account manages'),
    initialDatabase: described(
      z.optional(identifier(127)),
      'existing database an automatic setup first connects to, to create the managed database (required with automatic setup)',
    ),
    port: described(port(5439), 'TCP port of the cluster'),
    impersonation: impersonation(127, 'service_impersonation'),
    connectArgs: described(
      z.optional(z.string().check(z.maxLength(2048))),
      'driver connection-string arguments',
    ),
  };

  const userPassword = {
    authenticationType: z.literal('userPassword'),
    username: accountUsername(128),
    password: accountPassword(),
  };
  const accessKey = {
    authenticationType: z.literal('accessKey'),
    databaseUser: described(text(128), 'database user the access key signs in as'),
    accessKeyId: described(text(128), 'access key id of the cloud identity'),
    secretKey: described(secret(1024), 'secret access key of that identity (write-only)'),
    sessionToken: described(
      z.optional(secret(4096)),
      'session token, for temporary credentials (write-only)',
    ),
  };
  const idp = {
    authenticationType: z.literal('idp'),
    idp: described(ClusterIdpSchema, 'sign-in through an identity provider'),
  };

  const ClusterWarehouseConfigSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject({ ...base, ...userPassword }),
    z.strictObject({ ...base, ...accessKey }),
    z.strictObject({ ...base, ...idp }),
  ]);

  /** Privileged credentials for deleting an automatically bootstrapped integration. */
  const ClusterWarehouseDeleteSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject(userPassword),
    z.strictObject(accessKey),
    z.strictObject(idp),
  ]);
  return { config: ClusterWarehouseConfigSchema, deletion: ClusterWarehouseDeleteSchema };
});
export type ClusterWarehouseConfig = z.infer<ReturnType<typeof clusterWarehouseSchemas>['config']>;
