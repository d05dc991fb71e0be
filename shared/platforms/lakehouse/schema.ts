import * as z from 'zod';
import { enabledFlag, identifier, port, secret, text } from '../fields';

const LakehouseOAuthSchema = z.strictObject({
  clientId: text(255).describe('OAuth client id of the service principal'),
  authorityUrl: z
    .url({ protocol: /^https$/ })
    .describe('token endpoint, such as https://<workspace>/oidc/v1/token'),
  /** The spec gives no type: one scope string or a list of them. */
  scope: z
    .union([z.string().max(1024), z.array(z.string().max(256)).max(32)])
    .default([])
    .describe('OAuth scope: one string or a list'),
  clientSecret: secret(1024).describe('OAuth client secret of the service principal (write-only)'),
});

const base = {
  port: port(443).describe('TCP port of the workspace endpoint'),
  workspaceUrl: z
    .url({ protocol: /^https$/, error: 'must be an https:// workspace URL' })
    .describe('https:// URL of the workspace'),
  httpPath: text(1024).describe('HTTP path of the cluster or SQL warehouse'),
  audit: enabledFlag().describe('audit log ingestion (enabled: true or false)'),
  catalog: identifier(255)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'only letters, digits and underscores, not starting with a digit')
    .default('service')
    .describe(
      'catalog the service creates for its internal data, readable only by the service principal; letters, digits and underscores, not starting with a digit',
    ),
  groupPattern: z
    .strictObject({
      deny: identifier(255)
        .default('service_exemption_group')
        .describe('account-level group excluded from data policies'),
    })
    .default({ deny: 'service_exemption_group' })
    .describe(
      'deny: the account-level group excluded from data policies (privileged users and service accounts that need unmasked data); changing it pushes every policy again',
    ),
};

export const LakehouseConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({
    ...base,
    authenticationType: z.literal('token'),
    token: secret(2048).describe('access token of the service principal (write-only)'),
  }),
  z.strictObject({
    ...base,
    authenticationType: z.literal('oAuthM2M'),
    oAuthClientConfig: LakehouseOAuthSchema.describe(
      'OAuth machine-to-machine client of the service principal',
    ),
  }),
]);
export type LakehouseConfig = z.infer<typeof LakehouseConfigSchema>;

/** The workspace hostname, the integration's host identity. */
export function lakehouseHost(config: Pick<LakehouseConfig, 'workspaceUrl'>): string {
  return new URL(config.workspaceUrl).hostname.toLowerCase();
}
