import * as z from 'zod';
import { enabledFlag, identifier, port, secret, text } from '../fields';

const LakehouseOAuthSchema = z.strictObject({
  clientId: text(255),
  authorityUrl: z.url({ protocol: /^https$/ }),
  /** The spec gives no type: one scope string or a list of them. */
  scope: z.union([z.string().max(1024), z.array(z.string().max(256)).max(32)]).default([]),
  clientSecret: secret(1024),
});

const base = {
  port: port(443),
  workspaceUrl: z.url({ protocol: /^https$/, error: 'must be an https:// workspace URL' }),
  httpPath: text(1024),
  audit: enabledFlag(),
  catalog: identifier(255)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'only letters, digits and underscores, not starting with a digit')
    .default('service'),
  groupPattern: z
    .strictObject({ deny: identifier(255).default('service_exemption_group') })
    .default({ deny: 'service_exemption_group' }),
};

export const LakehouseConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, authenticationType: z.literal('token'), token: secret(2048) }),
  z.strictObject({
    ...base,
    authenticationType: z.literal('oAuthM2M'),
    oAuthClientConfig: LakehouseOAuthSchema,
  }),
]);
export type LakehouseConfig = z.infer<typeof LakehouseConfigSchema>;

/** The workspace hostname, the integration's host identity. */
export function lakehouseHost(config: Pick<LakehouseConfig, 'workspaceUrl'>): string {
  return new URL(config.workspaceUrl).hostname.toLowerCase();
}
