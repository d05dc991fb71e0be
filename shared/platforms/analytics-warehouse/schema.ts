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
export const analyticsWarehouseSchemas = lazySchema(() => {
  const MetadataDelimitersSchema = z._default(
    z.strictObject({
      hashDelimiter: described(
        z._default(z.string().check(z.minLength(1), z.maxLength(8)), '|'),
        'separates key-value pairs in stored profile data',
      ),
      hashKeyDelimiter: described(
        z._default(z.string().check(z.minLength(1), z.maxLength(8)), ':'),
        'separates a key from its value',
      ),
      arrayDelimiter: described(
        z._default(z.string().check(z.minLength(1), z.maxLength(8)), ','),
        'separates array elements',
      ),
    }),
    { hashDelimiter: '|', hashKeyDelimiter: ':', arrayDelimiter: ',' },
  );

  const AnalyticsWarehouseConfigSchema = z.strictObject({
    host: described(hostname(), 'hostname of the server (no scheme, port or path)'),
    database: described(
      identifier(128),
      'existing database where the service account stores every schema and view it generates',
    ),
    schema: described(identifier(128), 'service-managed schema where the secure views are created'),
    username: accountUsername(128),
    password: accountPassword(),
    metadataDelimiters: described(MetadataDelimitersSchema, 'delimiters used to store profile data'),
    port: described(port(1433), 'TCP port of the server'),
    impersonation: impersonation(128, 'SERVICE_IMPERSONATION'),
    connectArgs: described(
      z.optional(z.string().check(z.maxLength(2048))),
      'connection-string arguments passed to the database driver for the service account',
    ),
  });

  /** DELETE body: credentials only when the integration was bootstrapped automatically. */
  const AnalyticsWarehouseDeleteSchema = z.strictObject({
    authenticationType: z.literal('userPassword'),
    username: z.optional(text(128)),
    password: z.optional(secret(1024)),
  });
  return { config: AnalyticsWarehouseConfigSchema, deletion: AnalyticsWarehouseDeleteSchema };
});
export type AnalyticsWarehouseConfig = z.infer<ReturnType<typeof analyticsWarehouseSchemas>['config']>;
