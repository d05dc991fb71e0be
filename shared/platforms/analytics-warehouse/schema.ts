import * as z from 'zod';
import { hostname, identifier, port, secret, text } from '../fields';

const MetadataDelimitersSchema = z
  .strictObject({
    hashDelimiter: z.string().min(1).max(8).default('|'),
    hashKeyDelimiter: z.string().min(1).max(8).default(':'),
    arrayDelimiter: z.string().min(1).max(8).default(','),
  })
  .default({ hashDelimiter: '|', hashKeyDelimiter: ':', arrayDelimiter: ',' });

export const AnalyticsWarehouseConfigSchema = z.strictObject({
  host: hostname(),
  database: identifier(128),
  schema: identifier(128),
  username: text(128),
  password: secret(1024),
  metadataDelimiters: MetadataDelimitersSchema,
  port: port(1433),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false),
      role: identifier(128).default('SERVICE_IMPERSONATION'),
    })
    .default({ enabled: false, role: 'SERVICE_IMPERSONATION' }),
  connectArgs: z.string().max(2048).optional(),
});
export type AnalyticsWarehouseConfig = z.infer<typeof AnalyticsWarehouseConfigSchema>;

/** DELETE body: credentials only when the integration was bootstrapped automatically. */
export const AnalyticsWarehouseDeleteSchema = z.strictObject({
  authenticationType: z.literal('userPassword'),
  username: text(128).optional(),
  password: secret(1024).optional(),
});
