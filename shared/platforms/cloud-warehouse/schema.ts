import * as z from 'zod';
import {
  accountPassword,
  accountUsername,
  enabledFlag,
  hostname,
  identifier,
  port,
  regexSource,
  secret,
  text,
} from '../fields';

const CloudOAuthSchema = z
  .strictObject({
    provider: text(255).describe('name of the OAuth identity provider'),
    clientId: text(255).describe('OAuth client id'),
    authorityUrl: z.url({ protocol: /^https$/ }).describe('https:// token endpoint of the provider'),
    useCertificate: z
      .boolean()
      .default(true)
      .describe('true: sign in with a certificate and private key; false: with a client secret'),
    publicCertificateThumbprint: text(512)
      .optional()
      .describe('thumbprint of the public certificate (with useCertificate)'),
    oauthPrivateKey: secret(16_384)
      .optional()
      .describe('private key of the certificate (with useCertificate; write-only)'),
    clientSecret: secret(1024).optional().describe('client secret (without useCertificate; write-only)'),
    resource: text(1024).optional().describe('resource the token is requested for (optional)'),
  })
  .superRefine((o, ctx) => {
    if (o.useCertificate) {
      if (!o.publicCertificateThumbprint)
        ctx.addIssue({
          code: 'custom',
          path: ['publicCertificateThumbprint'],
          message: 'is required when useCertificate is true',
        });
      if (!o.oauthPrivateKey)
        ctx.addIssue({
          code: 'custom',
          path: ['oauthPrivateKey'],
          message: 'is required when useCertificate is true',
        });
      if (o.clientSecret !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['clientSecret'],
          message: 'is only allowed when useCertificate is false',
        });
    } else {
      if (!o.clientSecret)
        ctx.addIssue({
          code: 'custom',
          path: ['clientSecret'],
          message: 'is required when useCertificate is false',
        });
      if (o.publicCertificateThumbprint !== undefined || o.oauthPrivateKey !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['useCertificate'],
          message: 'certificate fields are only allowed when useCertificate is true',
        });
      }
    }
  });

const LineageSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('true turns native lineage ingestion on'),
    lineageConfig: z
      .strictObject({
        tableFilter: regexSource('^.*$').describe(
          'regular expression (without slashes) selecting the tables to ingest lineage for',
        ),
        tagFilterRegex: regexSource('^.*$').describe(
          'regular expression (without slashes) selecting the tags to propagate',
        ),
        ingestBatchSize: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .default(1000)
          .describe('rows per ingestion batch'),
      })
      .optional()
      .describe('what lineage ingestion covers (required when enabled)'),
  })
  .superRefine((l, ctx) => {
    if (l.enabled && !l.lineageConfig)
      ctx.addIssue({
        code: 'custom',
        path: ['lineageConfig'],
        message: 'is required when lineage is enabled',
      });
  })
  .default({ enabled: false });

const base = {
  host: hostname().describe('hostname of the account (no scheme, port or path)'),
  warehouse: identifier(255).describe('default compute warehouse the service account uses'),
  database: identifier(255).describe('new, empty database the service account manages'),
  role: identifier(255)
    .optional()
    .describe(
      'privileged role the service account uses during an automatic setup (required with automatic setup)',
    ),
  port: port(443).describe('TCP port of the account endpoint'),
  audit: enabledFlag().describe('audit log ingestion (enabled: true or false)'),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false).describe('true: the service creates the impersonation role'),
      role: identifier(255).default('SERVICE_IMPERSONATION').describe('name of the impersonation role'),
    })
    .default({ enabled: false, role: 'SERVICE_IMPERSONATION' })
    .describe('a role the service creates to run queries on behalf of users'),
  userRolePattern: z
    .strictObject({
      exclude: z
        .array(identifier(255))
        .max(1000)
        .default([])
        .describe('roles and users excluded from authorization checks'),
    })
    .default({ exclude: [] })
    .describe('exclude: roles and users left out of authorization checks'),
  workspaces: z
    .strictObject({
      enabled: z
        .boolean()
        .default(false)
        .describe('true when platform data sharing is used; false when table grants are used'),
      warehouses: z
        .array(identifier(255))
        .max(100)
        .default([])
        .describe('warehouses on which workspace users get usage'),
    })
    .default({ enabled: false, warehouses: [] })
    .describe(
      'enabled: true when platform data sharing is used (false with table grants); warehouses: where workspace users get usage',
    ),
  connectArgs: z
    .string()
    .max(2048)
    .optional()
    .describe('driver connection arguments for the service account'),
  privilegedConnectArgs: z
    .string()
    .max(2048)
    .optional()
    .describe('driver connection arguments for the privileged user of an automatic setup'),
  lineage: LineageSchema.describe(
    'native lineage ingestion: tags added to a table are applied to the columns of descendant data sources',
  ),
};

const userPassword = {
  authenticationType: z.literal('userPassword'),
  username: accountUsername(255),
  password: accountPassword(),
};
/** A key pair authenticates a named user, so `username` is required with it (the spec is silent). */
const keyPair = {
  authenticationType: z.literal('keyPair'),
  username: accountUsername(255),
  privateKey: secret(16_384).describe('private key of the key pair, new lines written as \\n (write-only)'),
};
const oAuth = {
  authenticationType: z.literal('oAuth'),
  oAuthClientConfig: CloudOAuthSchema.describe('OAuth client of the service account (manual setup only)'),
};

export const CloudWarehouseConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, ...userPassword }),
  z.strictObject({ ...base, ...keyPair }),
  z.strictObject({ ...base, ...oAuth }),
]);
export type CloudWarehouseConfig = z.infer<typeof CloudWarehouseConfigSchema>;

/** Privileged credentials for deleting an automatically bootstrapped integration. */
export const CloudWarehouseDeleteSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...userPassword, role: identifier(255) }),
  z.strictObject({ ...keyPair, role: identifier(255) }),
  z.strictObject({ ...oAuth, role: identifier(255) }),
]);
