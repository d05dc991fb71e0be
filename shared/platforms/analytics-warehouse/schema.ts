import * as z from 'zod';
import { accountPassword, accountUsername, hostname, identifier, port, secret, text } from '../fields';

const MetadataDelimitersSchema = z
  .strictObject({
    hashDelimiter: z
      .string()
      .min(1)
      .max(8)
      .default('|')
      .describe('separates key-value pairs in stored profile data'),
    hashKeyDelimiter: z.string().min(1).max(8).default(':').describe('separates a key from its value'),
    arrayDelimiter: z.string().min(1).max(8).default(',').describe('separates array elements'),
  })
  .default({ hashDelimiter: '|', hashKeyDelimiter: ':', arrayDelimiter: ',' });

export const AnalyticsWarehouseConfigSchema = z.strictObject({
  host: hostname().describe('hostname of the server (no scheme, port or path)'),
  database: identifier(128).describe(
    'existing database where the service account stores every schema and view it generates',
  ),
  schema: identifier(128).describe('service-managed schema where the secure views are created'),
  username: accountUsername(128),
  password: accountPassword(),
  metadataDelimiters: MetadataDelimitersSchema.describe('delimiters used to store profile data'),
  port: port(1433).describe('TCP port of the server'),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false).describe('true: the service creates the impersonation role'),
      role: identifier(128).default('SERVICE_IMPERSONATION').describe('name of the impersonation role'),
    })
    .default({ enabled: false, role: 'SERVICE_IMPERSONATION' })
    .describe('a role the service creates to run queries on behalf of users'),
  connectArgs: z
    .string()
    .max(2048)
    .optional()
    .describe('connection-string arguments passed to the database driver for the service account'),
});
export type AnalyticsWarehouseConfig = z.infer<typeof AnalyticsWarehouseConfigSchema>;

/** DELETE body: credentials only when the integration was bootstrapped automatically. */
export const AnalyticsWarehouseDeleteSchema = z.strictObject({
  authenticationType: z.literal('userPassword'),
  username: text(128).optional(),
  password: secret(1024).optional(),
});
