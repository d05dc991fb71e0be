/**
 * POST /data-sources (ADR 0016). The request as a whole: its entries well-formed, the integration
 * there (404), of a type that takes data sources (400), `enabled` (409), and every prefix an
 * `s3://` path inside its location (400 naming `dataSources[i].prefix`; nothing registered). Then
 * each entry on its own: a name or prefix already registered is refused naming the holder, the
 * remaining paths are located in the remote in one connector invocation (missing or not checkable:
 * refused), and each survivor is registered by one transaction that also needs the integration
 * still enabled. None registered: 422 with the same body.
 */
import type { Principal } from '../auth/permissions';
import { ConflictError, DependencyFailedError, InvalidInputError, UnprocessableError } from '../errors';
import { logger } from '../observability/logger';
import { platformOf } from '../platforms';
import type { LocatedPath } from '../platforms/port';
import { ConnectorInvocationError, locateRemotely } from '../platforms/remote';
import { nextId } from '../store/counters';
import { describeIssues } from '../validation';
import { type IntegrationRecord, integrationOwner, loadIntegration, payloadOf } from './integration';
import {
  type CreateDataSourcesBody,
  type CreateDataSourcesResponse,
  type DataSourceEntry,
  DataSourceEntrySchema,
  type DataSourceError,
  type DataSourceView,
  dataSourceTypes,
} from './model';
import { claimKeyOf, formatS3Path, isInside, parseLocation, parseS3Path } from './prefix';
import { claimHolder, insertDataSource, nameClaimKey, prefixClaimKey } from './store';
import { viewOf } from './view';

interface Candidate {
  index: number;
  entry: DataSourceEntry;
  /** The prefix as stored (a bucket with its slash). */
  path: string;
  claim: string;
}

const field = (index: number, name: keyof DataSourceEntry) => `dataSources[${index}].${name}`;

/** The well-formed entries, or a 400 naming every problem (`dataSources[i].field: …`). */
function parseEntries(raw: readonly unknown[]): { index: number; entry: DataSourceEntry }[] {
  const problems: string[] = [];
  const entries = raw.flatMap((value, index) => {
    const parsed = DataSourceEntrySchema.safeParse(value);
    if (!parsed.success) {
      problems.push(
        describeIssues(parsed.error.issues, {
          prefix: `dataSources[${index}].`,
          root: `dataSources[${index}]`,
        }),
      );
      return [];
    }
    return [{ index, entry: parsed.data }];
  });
  if (problems.length > 0) throw new InvalidInputError(problems.slice(0, 10).join('; '));
  return entries;
}

/** The integration the request names, if data sources may be registered under it now. */
async function integrationFor(
  body: CreateDataSourcesBody,
): Promise<{ record: IntegrationRecord; location: string }> {
  const record = await loadIntegration(body.integrationId);
  const dataSources = platformOf(record.type).dataSources;
  if (!dataSources || record.type !== body.type) {
    throw new InvalidInputError(
      record.type !== body.type && dataSources
        ? `type: integration ${record.id} is a ${record.type}, not a ${body.type}`
        : `integrationId: integration ${record.id} is a ${record.type}; data sources are registered under ${dataSourceTypes().join(', ')} integrations`,
    );
  }
  if (record.status !== 'enabled') {
    throw new ConflictError(
      `integration ${record.id} is ${record.status}; data sources can be registered only while it is enabled`,
      { status: record.status },
    );
  }
  return { record, location: dataSources.location(payloadOf(record) as never) };
}

/** Every entry's path, an s3:// path inside the location, or a 400 naming each one that is not. */
function candidatesIn(
  entries: { index: number; entry: DataSourceEntry }[],
  locationText: string,
): Candidate[] {
  const location = parseLocation(locationText);
  const problems: string[] = [];
  const candidates = entries.flatMap(({ index, entry }) => {
    const path = parseS3Path(entry.prefix);
    if ('problem' in path) {
      problems.push(`${field(index, 'prefix')}: ${path.problem}`);
      return [];
    }
    if (location.kind === 'invalid')
      problems.push(
        `${field(index, 'prefix')}: the integration's cloudLocationPath (${locationText}) is not an s3:// path, so nothing lies inside it`,
      );
    else if (!isInside(path, location))
      problems.push(
        `${field(index, 'prefix')}: ${entry.prefix} is not inside the integration's cloudLocationPath ${locationText}`,
      );
    return [{ index, entry, path: formatS3Path(path), claim: claimKeyOf(path) }];
  });
  if (problems.length > 0) throw new InvalidInputError(problems.slice(0, 10).join('; '));
  return candidates;
}

/** The refusal of an entry whose name or prefix another data source holds (undefined: free now). */
async function takenBy(candidate: Candidate, which: 'name' | 'prefix'): Promise<string | undefined> {
  const holder = await claimHolder(
    which === 'name' ? nameClaimKey(candidate.entry.dataSourceName) : prefixClaimKey(candidate.claim),
  );
  if (holder === undefined) return undefined;
  return which === 'name'
    ? `${field(candidate.index, 'dataSourceName')}: a data source named "${candidate.entry.dataSourceName}" is already registered (data source ${holder})`
    : `${field(candidate.index, 'prefix')}: ${candidate.path} is already registered (data source ${holder})`;
}

async function locate(record: IntegrationRecord, paths: string[]): Promise<Map<string, LocatedPath>> {
  if (paths.length === 0) return new Map();
  try {
    const located = await locateRemotely({
      payload: payloadOf(record),
      sealedFor: integrationOwner(record.id),
      integrationId: record.id,
      paths,
    });
    return new Map(located.map((l) => [l.path, l]));
  } catch (error) {
    if (!(error instanceof ConnectorInvocationError)) throw error;
    logger.error('the platform connector failed', { errorMessage: error.message });
    throw new DependencyFailedError('the platform connector could not check the paths; retry');
  }
}

function absence(candidate: Candidate, located: LocatedPath | undefined): string | undefined {
  const at = field(candidate.index, 'prefix');
  if (!located) return `${at}: ${candidate.path} could not be checked`;
  if ('error' in located) return `${at}: ${located.error}`;
  return located.found
    ? undefined
    : `${at}: ${candidate.path} does not exist in the integration's storage (checked with its own connection)`;
}

export async function createDataSources(
  caller: Principal,
  body: CreateDataSourcesBody,
): Promise<CreateDataSourcesResponse> {
  const entries = parseEntries(body.dataSources);
  const { record, location } = await integrationFor(body);
  const errors: DataSourceError[] = [];
  const refuse = (c: Candidate, message: string) =>
    errors.push({ index: c.index, dataSourceName: c.entry.dataSourceName, prefix: c.entry.prefix, message });

  // Names and prefixes already registered: refused without asking the remote.
  const free: Candidate[] = [];
  for (const candidate of candidatesIn(entries, location)) {
    const taken = (await takenBy(candidate, 'name')) ?? (await takenBy(candidate, 'prefix'));
    if (taken) refuse(candidate, taken);
    else free.push(candidate);
  }
  const located = await locate(record, [...new Set(free.map((c) => c.path))]);

  const created: DataSourceView[] = [];
  let integrationGone: string | undefined;
  for (const candidate of free) {
    const missing = absence(candidate, located.get(candidate.path));
    if (missing) {
      refuse(candidate, missing);
      continue;
    }
    if (integrationGone) {
      refuse(candidate, integrationGone);
      continue;
    }
    const outcome = await register(caller, record, candidate);
    if (outcome.view) created.push(outcome.view);
    else if (outcome.integration) {
      const now = await loadIntegration(record.id);
      integrationGone = `integration ${record.id} is ${now.status}; data sources can be registered only while it is enabled`;
      if (created.length === 0) throw new ConflictError(integrationGone, { status: now.status });
      refuse(candidate, integrationGone);
    } else refuse(candidate, outcome.refused);
  }
  errors.sort((a, b) => a.index - b.index);
  if (created.length === 0)
    throw new UnprocessableError('no data source was registered', { dataSources: [], errors });
  return { dataSources: created, errors };
}

/** One transaction; a claim taken meanwhile names its holder (a claim released meanwhile: again). */
async function register(
  caller: Principal,
  record: IntegrationRecord,
  candidate: Candidate,
): Promise<
  | { view: DataSourceView }
  | { view?: undefined; integration: true }
  | { view?: undefined; integration?: false; refused: string }
> {
  for (let attempt = 0; ; attempt++) {
    const dataSourceId = await nextId('dataSources');
    const item = {
      dataSourceId,
      integrationId: record.id,
      dataSourceName: candidate.entry.dataSourceName,
      prefix: candidate.path,
      prefixClaim: candidate.claim,
      createdAt: new Date().toISOString(),
      createdBy: caller.userId,
      createdByName: caller.name,
    };
    const outcome = await insertDataSource(item, record.type);
    if (outcome === 'created') return { view: viewOf(item) };
    if (outcome === 'integration') return { integration: true };
    const refused = await takenBy(candidate, outcome.taken);
    if (refused) return { refused };
    if (attempt >= 2)
      return {
        refused: `${field(candidate.index, 'dataSourceName')}: registering it raced other requests; retry`,
      };
  }
}
