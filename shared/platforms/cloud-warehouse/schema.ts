import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { described } from '../../schema-meta';
import {
  accountPassword,
  accountUsername,
  enabledFlag,
  hostname,
  identifier,
  impersonation,
  port,
  regexSource,
  secret,
  text,
} from '../fields';

/**
 * The type's schemas, built the first time the type is asked for them (ADR 0021): a function
 * builds the schemas of the types it meets, not of all seven at init.
 */
export const cloudWarehouseSchemas = lazySchema(() => {
  const CloudOAuthSchema = z
    .strictObject({
      provider: described(text(255), 'name of the OAuth identity provider'),
      clientId: described(text(255), 'OAuth client id'),
      authorityUrl: described(z.url({ protocol: /^https$/ }), 'https:// token endpoint of the provider'),
      useCertificate: described(
        z._default(z.boolean(), true),
        'true: sign in with a certificate and private key; false: with a client secret',
      ),
      publicCertificateThumbprint: described(
        z.optional(text(512)),
        'thumbprint of the public certificate (with useCertificate)',
      ),
      oauthPrivateKey: described(
        z.optional(secret(16_384)),
        'private key of the certificate (with useCertificate; write-only)',
      ),
      clientSecret: described(z.optional(secret(1024)), 'client secret (without useCertificate; write-only)'),
      resource: described(z.optional(text(1024)), 'resource the token is requested for (optional)'),
    })
    .check(
      z.superRefine((o, ctx) => {
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
      }),
    );

  const LineageSchema = z._default(
    z
      .strictObject({
        enabled: described(z._default(z.boolean(), false), 'true turns native lineage ingestion on'),
        lineageConfig: described(
          z.optional(
            z.strictObject({
              tableFilter: described(
                regexSource('^.*$'),
                'regular expression (without slashes) selecting the tables to ingest lineage for',
              ),
              tagFilterRegex: described(
                regexSource('^.*$'),
                'regular expression (without slashes) selecting the tags to propagate',
              ),
              ingestBatchSize: described(
                z._default(z.number().check(z.int(), z.gte(1), z.lte(100_000)), 1000),
                'rows per ingestion batch',
              ),
            }),
          ),
          'what lineage ingestion covers (required when enabled)',
        ),
      })
      .check(
        z.superRefine((l, ctx) => {
          if (l.enabled && !l.lineageConfig)
            ctx.addIssue({
              code: 'custom',
              path: ['lineageConfig'],
              message: 'is required when lineage is enabled',
            });
        }),
      ),
    { enabled: false },
  );

  const base = {
    host: described(hostname(), 'hostname of the account (no scheme, port or path)'),
    warehouse: described(identifier(255), 'default compute warehouse the service account uses'),
    database: described(identifier(255), 'new, empty database the service account manages'),
    role: described(
      z.optional(identifier(255)),
      'privileged role the service account uses during an automatic setup (required with automatic setup)',
    ),
    port: described(port(443), 'TCP port of the account endpoint'),
    audit: described(enabledFlag(), 'audit log ingestion (enabled: true or false)'),
    impersonation: impersonation(255, 'SERVICE_IMPERSONATION'),
    userRolePattern: described(
      z._default(
        z.strictObject({
          exclude: described(
            z._default(z.array(identifier(255)).check(z.maxLength(1000)), []),
            'roles and users excluded from authorization checks',
          ),
        }),
        { exclude: [] },
      ),
      'exclude: roles and users left out of authorization checks',
    ),
    workspaces: described(
      z._default(
        z.strictObject({
          enabled: described(
            z._default(z.boolean(), false),
            'true when platform data sharing is used; false when table grants are used',
          ),
          warehouses: described(
            z._default(z.array(identifier(255)).check(z.maxLength(100)), []),
            'warehouses on which workspace users get usage',
          ),
        }),
        { enabled: false, warehouses: [] },
      ),
      'enabled: true when platform data sharing is used (false with table grants); warehouses: where workspace users get usage',
    ),
    connectArgs: described(
      z.optional(z.string().check(z.maxLength(2048))),
      'driver connection arguments for the service account',
    ),
    privilegedConnectArgs: described(
      z.optional(z.string().check(z.maxLength(2048))),
      'driver connection arguments for the privileged user of an automatic setup',
    ),
    lineage: described(
      LineageSchema,
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
    privateKey: described(
      secret(16_384),
      'private key of the key pair, new lines written as \\n (write-only)',
    ),
  };
  const oAuth = {
    authenticationType: z.literal('oAuth'),
    oAuthClientConfig: described(CloudOAuthSchema, 'OAuth client of the service account (manual setup only)'),
  };

  const CloudWarehouseConfigSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject({ ...base, ...userPassword }),
    z.strictObject({ ...base, ...keyPair }),
    z.strictObject({ ...base, ...oAuth }),
  ]);

  /** Privileged credentials for deleting an automatically bootstrapped integration. */
  const CloudWarehouseDeleteSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject({ ...userPassword, role: identifier(255) }),
    z.strictObject({ ...keyPair, role: identifier(255) }),
    z.strictObject({ ...oAuth, role: identifier(255) }),
  ]);
  return { config: CloudWarehouseConfigSchema, deletion: CloudWarehouseDeleteSchema };
});
export type CloudWarehouseConfig = z.infer<ReturnType<typeof cloudWarehouseSchemas>['config']>;
