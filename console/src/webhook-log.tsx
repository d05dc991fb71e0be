/**
 * One webhook's own delivery log: GET /webhooks/history?webhookId=… (served by the webhook's
 * index), a page at a time, with a search by the `webhook-id` header a receiver saw (the
 * history's `deliveryId` filter). Each row opens the attempt's request and response.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, asApiError } from './api';
import { DeliveryTable, type HistoryRecord } from './delivery-table';
import { ErrorBanner } from './errors';
import { Pager } from './pager';

const PAGE = 10;

export function WebhookLog({
  webhookId,
  refresh,
  hidden,
}: {
  webhookId: number;
  refresh: number;
  /** Why the caller may see none of this webhook's records, when they may not. */
  hidden?: string | undefined;
}) {
  const [search, setSearch] = useState('');
  const [deliveryId, setDeliveryId] = useState<string | undefined>(undefined);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<{ count: number; records: HistoryRecord[] } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    setLoading(true);
    void api
      .GET('/webhooks/history', {
        params: {
          query: {
            webhookId,
            includeGlobal: true,
            pageSize: PAGE,
            offset,
            ...(deliveryId ? { deliveryId } : {}),
          },
        },
      })
      .then(({ data, error: failure, response }) => {
        setLoading(false);
        if (data) {
          setError(null);
          setPage(data);
        } else setError(asApiError(failure, response.status));
      });
  }, [webhookId, offset, deliveryId, refresh]);
  return (
    <section class="card" aria-labelledby="log-title">
      <div class="title-row">
        <h2 id="log-title">Delivery log</h2>
        {loading && (
          <span class="muted" aria-busy="true">
            Loading…
          </span>
        )}
      </div>
      {hidden && <p class="hint">{hidden}</p>}
      <search>
        <form
          class="filters"
          aria-label="Search deliveries"
          onSubmit={(e) => {
            e.preventDefault();
            setOffset(0);
            setDeliveryId(search.trim() || undefined);
          }}
        >
          <label>
            webhook-id{' '}
            <input
              value={search}
              placeholder="msg_…"
              onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
            />
          </label>
          <button type="submit">Search</button>
          {deliveryId && (
            <button
              type="button"
              onClick={() => {
                setSearch('');
                setDeliveryId(undefined);
                setOffset(0);
              }}
            >
              Show all
            </button>
          )}
        </form>
      </search>
      <ErrorBanner error={error} />
      {page && (
        <>
          <p class="log-count">
            {page.count} attempt{page.count === 1 ? '' : 's'}
            {deliveryId ? ` of ${deliveryId}` : ''}
          </p>
          <DeliveryTable
            label="Delivery log"
            records={page.records}
            durationColumn
            openId={open}
            onOpen={(r) => setOpen(open === r.id ? null : r.id)}
            detail={(r) => (
              <>
                <p>
                  Record {r.id}
                  {r.retryOf ? ` · re-send of record ${r.retryOf}` : ''}
                </p>
                <h3>Request</h3>
                <pre>{JSON.stringify(r.request, null, 2)}</pre>
                <h3>Response</h3>
                <pre>{JSON.stringify(r.response, null, 2)}</pre>
              </>
            )}
          />
          <Pager
            offset={offset}
            pageSize={PAGE}
            count={page.count}
            onOffset={setOffset}
            labels={['Newer', 'Older']}
          />
        </>
      )}
    </section>
  );
}
