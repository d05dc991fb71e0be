/** AnalyticsWarehouse's example payloads (what tests build their cases from: ../examples.ts). */
import { adminCredentials, examplePayload, type PlatformExamples } from '../examples';
import { analyticsWarehouse } from '.';

const ALL_ON = { impersonation: { enabled: true } };

const build = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  examplePayload(analyticsWarehouse, autoBootstrap, {
    host: 'sql.example.net',
    database: 'sales',
    schema: 'service_views',
    username: 'service_user',
    password: 'S3cret-pass',
    ...extra,
  });

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'AnalyticsWarehouse',
    autoBootstrap: true,
    config: {
      host: `aw-${id}.example.com`,
      database: 'analytics',
      schema: 'service_views',
      username: `aw-user-${id}`,
      password: `aw-pass-${id}`,
    },
  }),
  settingEdit: ['metadataDelimiters', { hashDelimiter: '#', hashKeyDelimiter: ':', arrayDelimiter: ';' }],
  deleteBody: adminCredentials,
  sql: {
    build,
    injected: (v) =>
      build(false, { username: v, password: v, schema: v, impersonation: { enabled: true, role: v } }),
    scripts: {
      'analytics-manual-minimal': build(false),
      'analytics-manual-impersonation': build(false, ALL_ON),
      'analytics-auto-impersonation': build(true, ALL_ON),
    },
    edits: {
      'analytics-manual-rename-password-impersonation': [
        build(false),
        build(false, { username: 'svc2', password: 'N3w', impersonation: { enabled: true, role: 'IMP' } }),
      ],
      'analytics-auto-impersonation-off': [build(true, ALL_ON), build(true)],
    },
  },
};
