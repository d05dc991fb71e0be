import * as z from 'zod';
import { enabledFlag, hostname, identifier, port, regexSource, secret, text } from '../fields';

const CloudOAuthSchema = z
  .strictObject({
    provider: text(255),
    clientId: text(255),
    authorityUrl: z.url({ protocol: /^https$/ }),
    useCertificate: z.boolean().default(true),
    publicCertificateThumbprint: text(512).optional(),
    oauthPrivateKey: secret(16_384).optional(),
    clientSecret: secret(1024).optional(),
    resource: text(1024).optional(),
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
    enabled: z.boolean().default(false),
    lineageConfig: z
      .strictObject({
        tableFilter: regexSource('^.*$'),
        tagFilterRegex: regexSource('^.*$'),
        ingestBatchSize: z.number().int().min(1).max(100_000).default(1000),
      })
      .optional(),
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
  host: hostname(),
  warehouse: identifier(255),
  database: identifier(255),
  role: identifier(255).optional(),
  port: port(443),
  audit: enabledFlag(),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false),
      role: identifier(255).default('SERVICE_IMPERSONATION'),
    })
    .default({ enabled: false, role: 'SERVICE_IMPERSONATION' }),
  userRolePattern: z
    .strictObject({ exclude: z.array(identifier(255)).max(1000).default([]) })
    .default({ exclude: [] }),
  workspaces: z
    .strictObject({
      enabled: z.boolean().default(false),
      warehouses: z.array(identifier(255)).max(100).default([]),
    })
    .default({ enabled: false, warehouses: [] }),
  connectArgs: z.string().max(2048).optional(),
  privilegedConnectArgs: z.string().max(2048).optional(),
  lineage: LineageSchema,
};

const userPassword = {
  authenticationType: z.literal('userPassword'),
  username: text(255),
  password: secret(1024),
};
/** A key pair authenticates a named user, so `username` is required with it (the spec is silent). */
const keyPair = { authenticationType: z.literal('keyPair'), username: text(255), privateKey: secret(16_384) };
const oAuth = { authenticationType: z.literal('oAuth'), oAuthClientConfig: CloudOAuthSchema };

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
