/** ClusterWarehouse's example payloads (what tests build their cases from: ../examples.ts). */
import { adminCredentials, examplePayload, type PlatformExamples } from '../examples';
import { clusterWarehouse } from '.';

const ALL_ON = { impersonation: { enabled: true } };

const build = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  examplePayload(clusterWarehouse, autoBootstrap, {
    host: 'cluster.example.com',
    database: 'service_db',
    ...(autoBootstrap ? { initialDatabase: 'dev' } : {}),
    authenticationType: 'userPassword',
    username: 'service_system_user',
    password: 'S3cret-pass',
    ...extra,
  });

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'ClusterWarehouse',
    autoBootstrap: true,
    config: {
      host: `cl-${id}.example.com`,
      database: 'service_db',
      initialDatabase: 'dev',
      authenticationType: 'userPassword',
      username: `cl-user-${id}`,
      password: `cl-pass-${id}`,
    },
  }),
  settingEdit: ['initialDatabase', 'postgres'],
  deleteBody: adminCredentials,
  sql: {
    build,
    // Backslashes are refused in this dialect's literals: the password gets slashes instead.
    injected: (v) =>
      build(false, {
        username: v,
        password: v.replaceAll('\\', '/'),
        impersonation: { enabled: true, role: v },
      }),
    scripts: {
      'cluster-manual-minimal': build(false),
      'cluster-manual-impersonation': build(false, ALL_ON),
      'cluster-auto-minimal': build(true),
      'cluster-auto-impersonation': build(true, { impersonation: { enabled: true, role: 'Policy Readers' } }),
      'cluster-manual-accesskey': build(false, {
        authenticationType: 'accessKey',
        username: undefined,
        password: undefined,
        databaseUser: 'iam_user',
        accessKeyId: 'AKIA',
        secretKey: 'k',
      }),
    },
    edits: {
      'cluster-manual-password-and-impersonation-on': [
        build(false),
        build(false, { password: 'N3w-pass', ...ALL_ON }),
      ],
      'cluster-manual-rename-user-impersonation-off': [
        build(false, ALL_ON),
        build(false, { username: 'renamed_user' }),
      ],
      'cluster-auto-impersonation-rename': [
        build(true, ALL_ON),
        build(true, { impersonation: { enabled: true, role: 'readers' } }),
      ],
      'cluster-no-change': [
        build(false, ALL_ON),
        build(false, { ...ALL_ON, port: 5440, connectArgs: 'sslmode=require' }),
      ],
    },
  },
};
