/**
 * The table of delivery records, one for every screen that lists them (the history page and a
 * webhook's own log): the `webhook-id` a receiver saw (opens the record), when, the type with its
 * kind (test, retry, skipped), the outcome and the attempt, plus the columns a screen asks for.
 */
import type { JSX } from 'preact';
import type { components } from '../../shared/openapi/api-types';
import { outcomeLabel, succeeded } from './delivery-outcome';

export type HistoryRecord = components['schemas']['WebhookHistoryRecord'];

function Kind({ record }: { record: HistoryRecord }) {
  const tags = [record.test && 'test', record.retryOf && 'retry', record.skipped && 'skipped'].filter(
    Boolean,
  );
  return tags.length ? <span class="muted"> ({tags.join(', ')})</span> : null;
}

export function DeliveryTable({
  label,
  records,
  webhookColumn = false,
  durationColumn = false,
  openId,
  onOpen,
  detail,
}: {
  label: string;
  records: readonly HistoryRecord[];
  /** A column naming each record's webhook (a list across webhooks). */
  webhookColumn?: boolean;
  /** A column with each attempt's duration. */
  durationColumn?: boolean;
  /** The record whose details are open, when they open in the table. */
  openId?: number | null;
  onOpen(record: HistoryRecord): void;
  /** The open record's details, in a row under it. */
  detail?(record: HistoryRecord): JSX.Element;
}) {
  const columns = 4 + (webhookColumn ? 1 : 0) + (durationColumn ? 1 : 0) + 1;
  return (
    <div class="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">webhook-id</th>
            <th scope="col">When</th>
            <th scope="col">Type</th>
            {webhookColumn && <th scope="col">Webhook</th>}
            <th scope="col">Outcome</th>
            {durationColumn && <th scope="col">Duration</th>}
            <th scope="col">Attempt</th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <>
              <tr key={r.id}>
                <td>
                  <button
                    type="button"
                    class="link mono"
                    aria-expanded={detail ? openId === r.id : undefined}
                    title={`record ${r.id}`}
                    onClick={() => onOpen(r)}
                  >
                    {r.deliveryId}
                  </button>
                </td>
                <td>{new Date(r.createdAt).toLocaleString()}</td>
                <td>
                  {r.notificationType}
                  <Kind record={r} />
                </td>
                {webhookColumn && <td>{r.name}</td>}
                <td>
                  <span class={`badge ${succeeded(r) ? 'ok' : 'bad'}`}>{outcomeLabel(r)}</span>
                </td>
                {durationColumn && <td>{r.durationMs !== undefined ? `${r.durationMs} ms` : '—'}</td>}
                <td>{r.attempt}</td>
              </tr>
              {detail && openId === r.id && (
                <tr key={`${r.id}-detail`} class="detail">
                  <td colSpan={columns}>{detail(r)}</td>
                </tr>
              )}
            </>
          ))}
        </tbody>
      </table>
    </div>
  );
}
