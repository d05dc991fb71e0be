/** Lakehouse's example payloads (what tests build their cases from: ../examples.ts). */
import { examplePayload, type PlatformExamples } from '../examples';
import { lakehouse } from '.';

const base = { workspaceUrl: 'https://dbc-1234.cloud.example.com', httpPath: '/sql/1.0/warehouses/abc' };

const build = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  examplePayload(lakehouse, autoBootstrap, {
    ...base,
    authenticationType: 'token',
    token: 'dapi-token',
    ...extra,
  });

/** The OAuth machine-to-machine variant. */
export const oAuth = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  examplePayload(lakehouse, autoBootstrap, {
    ...base,
    authenticationType: 'oAuthM2M',
    oAuthClientConfig: {
      clientId: '7f1c-service-principal',
      authorityUrl: 'https://dbc-1234.cloud.example.com/oidc/v1/token',
      clientSecret: 'oauth-secret',
    },
    ...extra,
  });

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'Lakehouse',
    autoBootstrap: true,
    config: {
      workspaceUrl: `https://lh-${id}.cloud.example.com`,
      httpPath: '/sql/1.0/warehouses/abc',
      authenticationType: 'token',
      token: `lh-token-${id}`,
    },
  }),
  settingEdit: ['groupPattern', { deny: 'other_exemption_group' }],
  sql: {
    build,
    injected: (v) =>
      oAuth(true, {
        audit: { enabled: true },
        oAuthClientConfig: {
          clientId: v,
          authorityUrl: 'https://x.example.com/oidc/v1/token',
          clientSecret: 's',
        },
      }),
    scripts: {
      'lakehouse-token-minimal': build(true),
      'lakehouse-token-audit': build(true, { audit: { enabled: true } }),
      'lakehouse-oauth-audit': oAuth(false, { audit: { enabled: true } }),
    },
    edits: {
      'lakehouse-oauth-audit-on': [oAuth(true), oAuth(true, { audit: { enabled: true } })],
      'lakehouse-audit-off-group-change': [
        build(true, { audit: { enabled: true } }),
        build(true, { groupPattern: { deny: 'other_group' } }),
      ],
    },
  },
};
