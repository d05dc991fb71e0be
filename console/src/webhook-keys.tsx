/**
 * An ordered webhook's keys that are not flowing (ADR 0020; docs/webhooks.md, "Parked keys: list,
 * resume, skip"), on its detail page: GET /webhooks/{id}/ordering-keys a page at a time (the API
 * pages by token, so the pager keeps the tokens of the pages before), and per parked key Resume
 * and Skip head. Skip asks first and sends the row's `headDeliveryId`, so a head that changed
 * meanwhile is the API's 409, shown beside the table. After an action the caller is told (its
 * toast, and the webhook read again for `health.parkedKeys`) and the list is read again; while a
 * key is draining the list is read again every few seconds until it is not.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { confirmAction } from './confirm';
import { ActionError, ErrorBanner } from './errors';
import { when } from './webhook-health';

type OrderingKey = components['schemas']['WebhookOrderingKey'];

const PAGE = 20;
/** How often the list is read again while a key is draining. */
const DRAINING_POLL_MS = 2000;

const STATE_TEXT: Record<OrderingKey['state'], string> = {
  parked: 'parked',
  held: 'held (webhook disabled)',
  draining: 'draining',
};
const STATE_TONE: Record<OrderingKey['state'], string> = { parked: 'bad', held: 'muted', draining: 'busy' };

export function ParkedKeys({
  webhookId,
  refresh,
  onChanged,
}: {
  webhookId: number;
  /** Changes when the page reads the webhook again: the list is read again too. */
  refresh: number;
  /** A key was resumed or skipped: the message for the user (the page reads the webhook again). */
  onChanged: (message: string) => void;
}) {
  // The tokens of the pages shown so far: the last is the current page's (undefined: the first).
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ keys: OrderingKey[]; nextToken?: string | undefined } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const token = tokens[tokens.length - 1];
  useEffect(() => {
    let current = true;
    void api
      .GET('/webhooks/{id}/ordering-keys', {
        params: {
          path: { id: webhookId },
          query: { pageSize: PAGE, ...(token ? { nextToken: token } : {}) },
        },
      })
      .then(({ data, error: failure, response }) => {
        if (!current) return;
        if (data) {
          setError(null);
          setPage(data);
        } else setError(asApiError(failure, response.status));
      });
    return () => {
      current = false;
    };
  }, [webhookId, token, refresh, reads]);
  const draining = page?.keys.some((k) => k.state === 'draining') ?? false;
  useEffect(() => {
    if (!draining) return;
    const timer = window.setTimeout(() => setReads((n) => n + 1), DRAINING_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [draining, page]);

  /** One action on a row: its request, then the message on success or its error beside the table. */
  const act = async <T,>(
    row: OrderingKey,
    send: () => Promise<{ data?: T; error?: unknown; response: Response }>,
    success: (data: T) => string,
  ) => {
    setActionError(null);
    setBusy(row.key);
    const { data, error: failure, response } = await send();
    setBusy(null);
    // Read again either way: a refusal (404, 409) means the list was out of date.
    setReads((n) => n + 1);
    if (data) onChanged(success(data));
    else setActionError(asApiError(failure, response.status));
  };
  const resume = (row: OrderingKey) =>
    act(
      row,
      () =>
        api.POST('/webhooks/{id}/ordering-keys/{key}/resume', {
          params: { path: { id: webhookId, key: row.key } },
        }),
      (key) =>
        `Key “${key.key}” resumed: ${key.waiting === 1 ? 'its waiting delivery is' : `its ${key.waiting} waiting deliveries are`} being sent in order.`,
    );
  const skip = async (row: OrderingKey) => {
    const ok = await confirmAction({
      title: `Skip the head of key “${row.key}”?`,
      message: `Delivery ${row.headDeliveryId} is given up: it is recorded in the history as skipped and never sent. The key's other waiting deliveries follow in order.`,
      confirmLabel: 'Skip head',
    });
    if (!ok) return;
    await act(
      row,
      () =>
        api.POST('/webhooks/{id}/ordering-keys/{key}/skip', {
          params: { path: { id: webhookId, key: row.key } },
          body: { headDeliveryId: row.headDeliveryId },
        }),
      (key) =>
        `Skipped ${key.skippedDeliveryId}, the head of key “${key.key}”: the rest of the key follows in order.`,
    );
  };

  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">Parked keys</h2>
      <p class="hint">
        Ordering keys that are not flowing: a parked key's head ran out of retries and everything behind it
        waits. Resume tries the head again; Skip head gives it up and sends the rest.
      </p>
      <ErrorBanner error={error} />
      {page &&
        (page.keys.length === 0 && tokens.length === 1 ? (
          <p class="muted" data-keys="none">
            Every key is flowing.
          </p>
        ) : (
          <div class="table-wrap">
            <table aria-label="Parked keys">
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">State</th>
                  <th scope="col">Waiting</th>
                  <th scope="col">Head (webhook-id)</th>
                  <th scope="col">Parked at</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.keys.map((k) => (
                  <tr key={k.key} data-key={k.key}>
                    <th scope="row">
                      <code>{k.key}</code>
                    </th>
                    <td>
                      <span class={`badge ${STATE_TONE[k.state]}`}>{STATE_TEXT[k.state]}</span>
                    </td>
                    <td>{k.waiting}</td>
                    <td class="url">
                      <code>{k.headDeliveryId}</code>
                    </td>
                    <td>{when(k.parkedAt)}</td>
                    <td>{k.lastError ?? '—'}</td>
                    <td>
                      {k.state === 'parked' ? (
                        <div class="actions">
                          <button
                            type="button"
                            class="primary"
                            disabled={busy === k.key}
                            aria-label={`Resume key ${k.key}`}
                            onClick={() => void resume(k)}
                          >
                            Resume
                          </button>
                          <button
                            type="button"
                            class="danger"
                            disabled={busy === k.key}
                            aria-label={`Skip head of key ${k.key}`}
                            onClick={() => void skip(k)}
                          >
                            Skip head
                          </button>
                        </div>
                      ) : (
                        <span class="muted">
                          {k.state === 'held' ? 'sent when the webhook is resumed' : 'sending in order…'}
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
      <ActionError error={actionError} />
      {page && (tokens.length > 1 || page.nextToken) && (
        <div class="actions">
          <button
            type="button"
            disabled={tokens.length === 1}
            onClick={() => setTokens((t) => t.slice(0, -1))}
          >
            Previous keys
          </button>
          <span>Page {tokens.length}</span>
          <button
            type="button"
            disabled={!page.nextToken}
            onClick={() => setTokens((t) => [...t, page.nextToken])}
          >
            Next keys
          </button>
        </div>
      )}
    </section>
  );
}
