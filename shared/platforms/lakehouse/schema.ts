import * as z from 'zod/mini';
import { lazySchema } from '../../lazy-schema';
import { described } from '../../schema-meta';
import { enabledFlag, identifier, port, secret, text } from '../fields';

/**
 * The type's schemas, built the first time the type is asked for them (ADR 0021): a function
 * builds the schemas of the types it meets, not of all seven at init.
 */
export const lakehouseSchemas = lazySchema(() => {
  const LakehouseOAuthSchema = z.strictObject({
    clientId: described(text(255), 'OAuth client id of the service principal'),
    authorityUrl: described(
      z.url({ protocol: /^https$/ }),
      'token endpoint, such as https://<workspace>/oidc/v1/token',
    ),
    /** The spec gives no type: one scope string or a list of them. */
    scope: described(
      z._default(
        z.union([
          z.string().check(z.maxLength(1024)),
          z.array(z.string().check(z.maxLength(256))).check(z.maxLength(32)),
        ]),
        [],
      ),
      'OAuth scope: one string or a list',
    ),
    clientSecret: described(secret(1024), 'OAuth client secret of the service principal (write-only)'),
  });

  const base = {
    port: described(port(443), 'TCP port of the workspace endpoint'),
    workspaceUrl: described(
      z.url({ protocol: /^https$/, error: 'must be an https:// workspace URL' }),
      'https:// URL of the workspace',
    ),
    httpPath: described(text(1024), 'HTTP path of the cluster or SQL warehouse'),
    audit: described(enabledFlag(), 'audit log ingestion (enabled: true or false)'),
    catalog: described(
      z._default(
        identifier(255).check(
          z.regex(
            /^[A-Za-z_][A-Za-z0-9_]*$/,
            'only letters, digits and underscores, not starting with a digit',
          ),
        ),
        'service',
      ),
      'catalog the service creates for its internal data, readable only by the service principal; letters, digits and underscores, not starting with a digit',
    ),
    groupPattern: described(
      z._default(
        z.strictObject({
          deny: described(
            z._default(identifier(255), 'service_exemption_group'),
            'account-level group excluded from data policies',
          ),
        }),
        { deny: 'service_exemption_group' },
      ),
      'deny: the account-level group excluded from data policies (privileged users and service accounts that need unmasked data); changing it pushes every policy again',
    ),
  };

  const LakehouseConfigSchema = z.discriminatedUnion('authenticationType', [
    z.strictObject({
      ...base,
      authenticationType: z.literal('token'),
      token: described(secret(2048), 'access token of the service principal (write-only)'),
    }),
    z.strictObject({
      ...base,
      authenticationType: z.literal('oAuthM2M'),
      oAuthClientConfig: described(
        LakehouseOAuthSchema,
        'OAuth machine-to-machine client of the service principal',
      ),
    }),
  ]);
  return { config: LakehouseConfigSchema };
});
export type LakehouseConfig = z.infer<ReturnType<typeof lakehouseSchemas>['config']>;

/** The workspace hostname, the integration's host identity. */
export function lakehouseHost(config: Pick<LakehouseConfig, 'workspaceUrl'>): string {
  return new URL(config.workspaceUrl).hostname.toLowerCase();
}
