/**
 * The periodic check of an integration (continuous connection assurance): when it last ran,
 * what it found, and — while the integration is in recurringValidationError — the repair script
 * one click away (and, for an automatic setup, the repair itself).
 */
import { useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, rawCall } from './api';
import { ErrorBanner } from './errors';
import { ScriptSteps } from './scripts';

type Integration = components['schemas']['Integration'];
type Finding = NonNullable<Integration['findings']>[number];

/** When the last check ran, and how many findings it had. */
export function LastCheck({ item }: { item: Pick<Integration, 'lastCheckedAt' | 'findings'> }) {
  if (!item.lastCheckedAt) return <span class="muted">not yet</span>;
  const at = new Date(item.lastCheckedAt);
  const findings = item.findings?.length ?? 0;
  return (
    <span>
      {at.toLocaleString()}
      {findings > 0 && (
        <span class="findings-count">
          {' '}
          · {findings} finding{findings === 1 ? '' : 's'}
        </span>
      )}
    </span>
  );
}

function FindingsTable({ findings }: { findings: Finding[] }) {
  return (
    <div class="table-wrap">
      <table aria-label="Findings">
        <thead>
          <tr>
            <th scope="col">Finding</th>
            <th scope="col">Object</th>
            <th scope="col">Expected</th>
            <th scope="col">Found</th>
          </tr>
        </thead>
        <tbody>
          {findings.map((f) => (
            <tr key={`${f.kind}:${f.object}`}>
              <td>{f.kind === 'missing' ? 'missing' : 'privilege creep (reported, never revoked)'}</td>
              <td>{f.object}</td>
              <td>{f.expected}</td>
              <td>{f.found}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PeriodicCheck({ item, onChange }: { item: Integration; onChange: () => void }) {
  const [error, setError] = useState<ApiError | null>(null);
  const failing = item.status === 'recurringValidationError';
  const missing = (item.findings ?? []).some((f) => f.kind === 'missing');
  const repair = async () => {
    setError(null);
    const result = await rawCall('POST', `/integrations/${item.id}/repair`);
    if (result.status >= 400) return setError(result.json as ApiError);
    onChange();
  };
  if (!item.lastCheckedAt && !failing) return null;
  return (
    <section aria-label="Periodic check">
      <h2>Periodic check</h2>
      <p>
        Last checked: <LastCheck item={item} />
      </p>
      {(item.findings?.length ?? 0) > 0 && <FindingsTable findings={item.findings ?? []} />}
      <ErrorBanner error={error} />
      {failing && missing && (
        <div class="actions">
          {item.autoBootstrap && (
            <button type="button" class="primary" onClick={repair}>
              Repair now
            </button>
          )}
          <ScriptSteps steps={[{ title: 'repair', path: `/integrations/${item.id}/scripts/repair` }]} />
        </div>
      )}
    </section>
  );
}
