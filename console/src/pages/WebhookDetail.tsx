/**
 * One webhook, the place to operate it: its status, health and latency, the actions (edit,
 * pause/resume, rotate, test, recover; webhook-actions.tsx), how it is signed (scheme, public key,
 * JWKS URL, and the secret a switch to v1 answers once; webhook-signing.tsx), an ordered
 * webhook's parked keys (resume, skip; webhook-keys.tsx), delete with a confirmation, and its own
 * delivery log. Every figure is the API's; after an action the webhook is read again.
 */
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, asApiError } from '../api';
import { confirmAction } from '../confirm';
import { ActionError, ErrorBanner } from '../errors';
import { Loading } from '../loading';
import { navigate } from '../router';
import { toast } from '../toast';
import { PauseResume, Recover, RotateSecret, SendTest } from '../webhook-actions';
import { destinationDetails } from '../webhook-destination';
import { EditWebhook, type SwitchedSecret } from '../webhook-edit';
import { HealthFigures, ownerOf, type Webhook, WebhookStatusBadge, when } from '../webhook-health';
import { ParkedKeys } from '../webhook-keys';
import { WebhookLog } from '../webhook-log';
import { orderedText } from '../webhook-ordering';
import { OneTimeSecret, SigningDetails } from '../webhook-signing';
import '../webhooks.css';
import { me } from '../session';

/**
 * Why the delivery log is empty for a webhook whose health counts attempts: the history shows
 * each user the records of their own personal webhooks and, to admins, those of global ones, so
 * an admin looking at another user's personal webhook sees its health but none of its records.
 */
function recordsHidden(item: Webhook): string | undefined {
  if (item.global || item.createdBy === me.value?.userId) return undefined;
  return `Its delivery records belong to its owner (user #${item.createdBy}): the history shows each user the records of their own personal webhooks, and admins those of global webhooks, so none are listed here. The health figures above count every attempt.`;
}

export function WebhookDetail({ id }: { id: number }) {
  const [item, setItem] = useState<Webhook | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState(false);
  // A switch to v1 answers its generated secret once; the edit form has closed by then.
  const [switched, setSwitched] = useState<SwitchedSecret | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void api
      .GET('/webhooks/{id}', { params: { path: { id } } })
      .then(({ data, error: failure, response }) => {
        if (data) setItem(data);
        else setError(asApiError(failure, response.status));
      });
  }, [id, tick]);
  const remove = async () => {
    if (!item) return;
    const confirmed = await confirmAction({
      title: `Delete webhook “${item.name}”?`,
      message:
        'Its pending deliveries are dropped; its past deliveries stay in the history until they expire.',
      confirmLabel: 'Delete webhook',
    });
    if (!confirmed) return;
    setDeleteError(null);
    const { error: failure, response } = await api.DELETE('/webhooks/{id}', { params: { path: { id } } });
    if (!response.ok) return setDeleteError(asApiError(failure, response.status));
    toast(`Webhook “${item.name}” deleted`);
    navigate('/webhooks');
  };
  const changed = (_webhook: Webhook, text: string) => {
    setEditing(false);
    toast(text);
    // Read it again: the answer of an action carries no health figures.
    setTick((t) => t + 1);
  };
  const sent = (text: string) => {
    toast(text);
    setTick((t) => t + 1);
  };
  return (
    <section>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <ErrorBanner error={error} />
      {!item && !error && <Loading label="Loading the webhook…" />}
      {item && (
        <>
          <div class="title-row">
            <h1>{item.name}</h1>
            <WebhookStatusBadge webhook={item} />
          </div>
          <dl>
            {item.destination ? (
              destinationDetails(item.destination).map(([term, value]) => (
                <Fragment key={term}>
                  <dt>{term}</dt>
                  <dd class="url">{value}</dd>
                </Fragment>
              ))
            ) : (
              <>
                <dt>URL</dt>
                <dd class="url">{item.url}</dd>
              </>
            )}
            <dt>Scope</dt>
            <dd>{item.global ? 'global' : 'personal'}</dd>
            <dt>Owner</dt>
            <dd>{ownerOf(item)}</dd>
            <dt>Notification types</dt>
            <dd>{item.notificationType.join(', ')}</dd>
            <dt>Action type</dt>
            <dd>{item.actionType ?? '—'}</dd>
            <dt>Rate limit</dt>
            <dd>{item.maxDeliveriesPerSecond ? `${item.maxDeliveriesPerSecond} per second` : 'none'}</dd>
            <dt>Delivery order</dt>
            <dd data-ordered={String(item.ordered)}>{orderedText(item.ordered)}</dd>
            <dt>Filter</dt>
            <dd>
              {item.filter ? (
                <code class="filter">{item.filter}</code>
              ) : (
                'none: every notification of its types'
              )}
            </dd>
            <SigningDetails webhook={item} />
            <dt>Created</dt>
            <dd>{when(item.createdAt)}</dd>
          </dl>
          <HealthFigures webhook={item} />
          {switched && (
            <OneTimeSecret
              secret={switched.secret}
              previous={
                switched.until
                  ? `The previous Ed25519 key keeps signing until ${when(switched.until)}: deliveries carry both signatures, v1 and v1a, until then.`
                  : 'There was no previous key: only this secret signs.'
              }
              onDismiss={() => setSwitched(null)}
            />
          )}
          {editing ? (
            <EditWebhook
              webhook={item}
              onChanged={changed}
              onSent={sent}
              onSecret={setSwitched}
              onClose={() => setEditing(false)}
            />
          ) : (
            <section class="card" aria-labelledby="operate-title">
              <div class="title-row">
                <h2 id="operate-title">Operate</h2>
                <button type="button" onClick={() => setEditing(true)}>
                  Edit
                </button>
              </div>
              <div class="operate">
                <PauseResume webhook={item} onChanged={changed} onSent={sent} />
                <SendTest webhook={item} onChanged={changed} onSent={sent} />
                <RotateSecret webhook={item} onChanged={changed} onSent={sent} />
                <Recover webhook={item} onChanged={changed} onSent={sent} />
              </div>
            </section>
          )}
          {item.ordered && <ParkedKeys webhookId={item.id} refresh={tick} onChanged={sent} />}
          <WebhookLog webhookId={item.id} refresh={tick} hidden={recordsHidden(item)} />
          <div class="actions">
            <button type="button" class="danger" onClick={() => void remove()}>
              Delete webhook
            </button>
            <ActionError error={deleteError} />
          </div>
        </>
      )}
    </section>
  );
}
