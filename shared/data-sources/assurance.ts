/**
 * The periodic check of an integration's data sources (ADR 0016), run by the integration check
 * after the type's own (`checkMessage`'s extension): every registered prefix is located with the
 * integration's connection. A vanished one fails the check (`recurringValidationError`) with a
 * `missing` finding naming the data source; one that could not be checked fails it without one.
 */
import type { AssuranceFinding, AssuranceResult } from '../platforms/port';
import { failed, passed } from '../platforms/validation-tests';
import type { AssuranceExtension } from './integration';
import { listDataSources } from './store';

const TEST_NAME = 'Assurance: Data Sources Exist';

export const checkDataSources: AssuranceExtension = async (record, payload, connector) => {
  const none: AssuranceResult = { tests: [], findings: [] };
  if ((record.dataSourceCount ?? 0) <= 0 || !connector.locate) return none;
  const items = await listDataSources({ integrationId: record.id });
  if (items.length === 0) return none;
  const located = new Map(
    (await connector.locate({ integrationId: record.id, payload, paths: items.map((i) => i.prefix) })).map(
      (l) => [l.path, l],
    ),
  );
  const findings: AssuranceFinding[] = [];
  const problems: string[] = [];
  for (const item of items) {
    const name = `data source ${item.dataSourceId} "${item.dataSourceName}" (${item.prefix})`;
    const at = located.get(item.prefix);
    if (at && 'found' in at && at.found) continue;
    if (at && 'found' in at) {
      findings.push({
        kind: 'missing',
        object: name,
        expected: `${item.prefix} exists`,
        found: 'nothing at that path',
      });
      problems.push(`${name} no longer exists`);
    } else problems.push(at && 'error' in at ? `${name}: ${at.error}` : `${name} could not be checked`);
  }
  return {
    tests: [problems.length === 0 ? passed(TEST_NAME) : failed(TEST_NAME, problems.join('; '))],
    findings,
  };
};
