/** CloudWarehouse's example payloads (what tests build their cases from: ../examples.ts). */
import { generateKeyPairSync } from 'node:crypto';
import { adminCredentials, examplePayload, type PlatformExamples } from '../examples';
import { cloudWarehouse } from '.';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** An RSA private key as the spec writes it: new lines replaced by a backslash and the letter n. */
export const PRIVATE_KEY = (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).replaceAll(
  '\n',
  '\\n',
);

const ALL_ON = { impersonation: { enabled: true } };
const FEATURES = {
  audit: { enabled: true },
  lineage: { enabled: true, lineageConfig: {} },
};

const build = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  examplePayload(cloudWarehouse, autoBootstrap, {
    host: 'acme.snowflakecomputing.com',
    warehouse: 'compute_wh',
    database: 'service_db',
    authenticationType: 'userPassword',
    username: 'service_user',
    password: 'S3cret-pass',
    ...(autoBootstrap ? { role: 'ACCOUNTADMIN' } : {}),
    ...extra,
  });

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'CloudWarehouse',
    autoBootstrap: true,
    config: {
      host: `cw-${id}.example.com`,
      warehouse: 'COMPUTE_WH',
      database: 'SERVICE_DB',
      role: 'ACCOUNTADMIN',
      authenticationType: 'userPassword',
      username: `cw-user-${id}`,
      password: `cw-pass-${id}`,
    },
  }),
  settingEdit: ['userRolePattern', { exclude: ['AUDITOR'] }],
  deleteBody: (id) => ({ ...adminCredentials(id), role: 'ACCOUNTADMIN' }),
  sql: {
    build,
    injected: (v) =>
      build(false, { username: v, password: v, warehouse: v, impersonation: { enabled: true, role: v } }),
    scripts: {
      'cloud-manual-minimal': build(false),
      'cloud-manual-keypair': build(false, {
        authenticationType: 'keyPair',
        password: undefined,
        privateKey: PRIVATE_KEY,
      }),
      'cloud-manual-oauth': build(false, {
        authenticationType: 'oAuth',
        username: undefined,
        password: undefined,
        oAuthClientConfig: {
          provider: 'okta',
          clientId: 'c',
          authorityUrl: 'https://idp.example.com/token',
          useCertificate: false,
          clientSecret: 's',
        },
      }),
      'cloud-auto-minimal': build(true),
      'cloud-auto-all-features': build(true, {
        ...ALL_ON,
        ...FEATURES,
        workspaces: { enabled: true, warehouses: ['ws_one', 'ws_two'] },
        userRolePattern: { exclude: ['ACCOUNTADMIN'] },
      }),
    },
    edits: {
      'cloud-manual-features-on': [
        build(false),
        build(false, {
          ...ALL_ON,
          ...FEATURES,
          workspaces: { enabled: true, warehouses: ['ws_one'] },
          warehouse: 'bigger_wh',
        }),
      ],
      'cloud-manual-features-off': [
        build(false, { ...ALL_ON, ...FEATURES, workspaces: { enabled: true, warehouses: ['ws_one'] } }),
        build(false),
      ],
      'cloud-manual-password-to-keypair': [
        build(false),
        build(false, { authenticationType: 'keyPair', password: undefined, privateKey: PRIVATE_KEY }),
      ],
      'cloud-auto-user-change': [build(true), build(true, { username: 'other_user' })],
    },
  },
};
