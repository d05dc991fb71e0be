/**
 * The one-off reseal of integration secrets written before envelope bindings (docs/adr/0008):
 * every `enc:v1:` secret of a stored config or pending config is opened under its old purpose
 * and sealed again for its integration, field and connection. A conditional write per
 * integration (its version), retried on a race; idempotent (a bound value is left alone). Run by
 * `npm run cli -- secrets reseal` and by the local cloud at start.
 */
import type { IntegrationRecord, StoredConfig } from './model';
import { integrationOwner, secretsOf } from './secrets';
import { getIntegration, listIntegrations, updateIntegration } from './store/integrations';

export interface ResealReport {
  scanned: number;
  /** Records written (one per integration or webhook with at least one old value). */
  resealed: number;
  /** Secret values sealed again. */
  values: number;
}

const CONFIGS = ['config', 'pendingConfig'] as const;
const ATTEMPTS = 5;

async function resealed(record: IntegrationRecord) {
  const set: Partial<Record<(typeof CONFIGS)[number], StoredConfig>> = {};
  let values = 0;
  for (const attribute of CONFIGS) {
    const config = record[attribute];
    if (!config) continue;
    const next = await secretsOf({ type: record.type, config }).resealLegacy(integrationOwner(record.id));
    if (next.resealed === 0) continue;
    set[attribute] = next.config as StoredConfig;
    values += next.resealed;
  }
  return { set, values };
}

export async function resealIntegrationSecrets(): Promise<ResealReport> {
  const report: ResealReport = { scanned: 0, resealed: 0, values: 0 };
  for (const listed of await listIntegrations()) {
    report.scanned++;
    let record: IntegrationRecord | undefined = listed;
    for (let attempt = 0; record && attempt < ATTEMPTS; attempt++) {
      const { set, values } = await resealed(record);
      if (values === 0) break;
      if (await updateIntegration(record.id, { version: record.version }, { set })) {
        report.resealed++;
        report.values += values;
        break;
      }
      // Changed meanwhile (a request or a workflow step): read it again.
      record = await getIntegration(record.id);
      if (attempt === ATTEMPTS - 1)
        throw new Error(`integration ${listed.id} kept changing; run the reseal again`);
    }
  }
  return report;
}
