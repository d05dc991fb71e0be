import { useEffect, useState } from 'preact/hooks';
import { NOTIFICATION_NAMES } from '../../../shared/notifications/catalog';
import type { paths } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from '../api';
import { DeliveriesChart, type Delivery } from '../chart';
import { outcomeLabel } from '../delivery-outcome';
import { DeliveryTable, type HistoryRecord } from '../delivery-table';
import { ErrorBanner } from '../errors';
import { Pager } from '../pager';
import { isAdmin } from '../session';
import { maskedSignature } from '../webhook-signing';
import '../webhooks.css';

type Query = NonNullable<paths['/webhooks/history']['get']['parameters']['query']>;

const PAGE = 20;

async function lastDay(): Promise<Delivery[]> {
  const since = Date.now() - 24 * 3_600_000;
  const out: Delivery[] = [];
  for (let page = 0; page < 10; page++) {
    const { data } = await api.GET('/webhooks/history', {
      params: { query: { pageSize: 100, offset: page * 100, sortOrder: 'desc', includeGlobal: isAdmin() } },
    });
    if (!data) break;
    const recent = data.records.filter((r) => Date.parse(r.createdAt) >= since);
    out.push(...recent);
    if (recent.length < data.records.length || data.records.length < 100) break;
  }
  return out;
}

function Drawer({
  record,
  onClose,
  onRetried,
}: {
  record: HistoryRecord;
  onClose: () => void;
  onRetried: () => void;
}) {
  const [error, setError] = useState<ApiError | null>(null);
  const [retried, setRetried] = useState<number | null>(null);
  const retry = async () => {
    setError(null);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/history/retry/{id}', {
      params: { path: { id: record.id } },
    });
    if (data) {
      setRetried((data as { id?: number }).id ?? -1);
      onRetried();
    } else setError(asApiError(failure, response.status));
  };
  return (
    <aside class="drawer" aria-label={`Delivery record ${record.id}`}>
      <div class="title-row">
        <h2>Record {record.id}</h2>
        <button type="button" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </div>
      <dl>
        <dt>Webhook</dt>
        <dd>
          {record.name} ({record.url})
        </dd>
        <dt>Outcome</dt>
        <dd>{outcomeLabel(record)}</dd>
        <dt>Duration</dt>
        <dd>{record.durationMs !== undefined ? `${record.durationMs} ms` : '—'}</dd>
        <dt>Delivery</dt>
        <dd>
          {record.deliveryId} · attempt {record.attempt}
          {record.retryOf ? ` · retry of #${record.retryOf}` : ''}
        </dd>
      </dl>
      <h3>Headers sent</h3>
      <pre>
        {`content-type: application/json\nwebhook-id: ${record.deliveryId}\nwebhook-timestamp: (the attempt's time)\n${maskedSignature()}`}
      </pre>
      <h3>Request</h3>
      <pre>{JSON.stringify(record.request, null, 2)}</pre>
      <h3>Response</h3>
      <pre>{JSON.stringify(record.response, null, 2)}</pre>
      <ErrorBanner error={error} />
      {retried !== null && <p role="status">Retry sent{retried > 0 ? `: record #${retried}` : ''}.</p>}
      <button type="button" class="primary" onClick={retry}>
        Retry
      </button>
    </aside>
  );
}

export function History() {
  const [query, setQuery] = useState<Query>({
    sortField: 'createdAt',
    sortOrder: 'desc',
    includeGlobal: isAdmin(),
  });
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ count: number; records: HistoryRecord[] } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [open, setOpen] = useState<HistoryRecord | null>(null);
  const [day, setDay] = useState<Delivery[]>([]);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void api
      .GET('/webhooks/history', { params: { query: { ...query, pageSize: PAGE, offset } } })
      .then(({ data, error: failure, response }) => {
        if (data) setPage(data);
        else setError(asApiError(failure, response.status));
      });
  }, [query, offset, tick]);
  useEffect(() => {
    void lastDay().then(setDay);
  }, [tick]);
  const set = (patch: Partial<Query>) => {
    setOffset(0);
    setQuery((q) => ({ ...q, ...patch }));
  };
  return (
    <section>
      <div class="title-row">
        <h1>Delivery history</h1>
        <button type="button" onClick={() => setTick((t) => t + 1)}>
          Refresh
        </button>
      </div>
      <DeliveriesChart records={day} />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>
          Type{' '}
          <select
            value={query.notificationType ?? ''}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              set({ notificationType: (v || undefined) as Query['notificationType'] });
            }}
          >
            <option value="">all</option>
            {NOTIFICATION_NAMES.map((n) => (
              <option value={n}>{n}</option>
            ))}
          </select>
        </label>
        <label>
          Outcome{' '}
          <select
            value={query.successOrFailure ?? ''}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              set({ successOrFailure: (v || undefined) as 'success' | 'failure' | undefined });
            }}
          >
            <option value="">all</option>
            <option value="success">success</option>
            <option value="failure">failure</option>
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={query.includeUser !== false}
            onChange={(e) => set({ includeUser: (e.target as HTMLInputElement).checked })}
          />{' '}
          personal
        </label>
        {isAdmin() && (
          <label class="check">
            <input
              type="checkbox"
              checked={Boolean(query.includeGlobal)}
              onChange={(e) => set({ includeGlobal: (e.target as HTMLInputElement).checked })}
            />{' '}
            global
          </label>
        )}
        <label>
          Sort{' '}
          <select
            value={`${query.sortField}:${query.sortOrder}`}
            onChange={(e) => {
              const [sortField, sortOrder] = (e.target as HTMLSelectElement).value.split(':');
              set({ sortField: sortField as 'createdAt', sortOrder: sortOrder as 'asc' | 'desc' });
            }}
          >
            <option value="createdAt:desc">newest first</option>
            <option value="createdAt:asc">oldest first</option>
            <option value="id:desc">id ↓</option>
            <option value="id:asc">id ↑</option>
          </select>
        </label>
      </form>
      <ErrorBanner error={error} />
      {page && (
        <>
          <p role="status">
            {page.count} record{page.count === 1 ? '' : 's'}
          </p>
          <DeliveryTable label="Delivery records" records={page.records} webhookColumn onOpen={setOpen} />
          <Pager offset={offset} pageSize={PAGE} count={page.count} onOffset={setOffset} />
        </>
      )}
      {open && <Drawer record={open} onClose={() => setOpen(null)} onRetried={() => setTick((t) => t + 1)} />}
    </section>
  );
}
