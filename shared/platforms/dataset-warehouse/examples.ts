/** DatasetWarehouse's example payloads (what tests build their cases from: ../examples.ts). */
import type { PlatformExamples } from '../examples';

/** A service-account credential (JSON text) of `project`. */
export function serviceAccount(project: string, privateKey = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: project,
    client_email: `causeway@${project}.iam.example.com`,
    private_key: `-----BEGIN PRIVATE KEY-----\n${privateKey}\n-----END PRIVATE KEY-----\n`,
  });
}

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'DatasetWarehouse',
    autoBootstrap: false,
    config: {
      role: 'roles/service',
      datasetSuffix: '_secure',
      location: 'US',
      credential: serviceAccount(`proj-${id}`, `dw-key-${id}`),
    },
  }),
  settingEdit: ['datasetSuffix', '_v2'],
};
