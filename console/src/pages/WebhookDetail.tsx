import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from '../api';
import { confirmAction } from '../confirm';
import { ActionError, ErrorBanner } from '../errors';
import { Loading } from '../loading';
import { navigate } from '../router';
import { toast } from '../toast';

type Webhook = components['schemas']['Webhook'];

export function WebhookDetail({ id }: { id: number }) {
  const [item, setItem] = useState<Webhook | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  useEffect(() => {
    void api
      .GET('/webhooks/{id}', { params: { path: { id } } })
      .then(({ data, error: failure, response }) => {
        if (data) setItem(data);
        else setError(asApiError(failure, response.status));
      });
  }, [id]);
  const remove = async () => {
    if (!item) return;
    const confirmed = await confirmAction({
      title: `Delete webhook “${item.name}”?`,
      message:
        'Its pending deliveries are dropped; its past deliveries stay in the history until they expire.',
      confirmLabel: 'Delete webhook',
    });
    if (!confirmed) return;
    setActionError(null);
    const { error: failure, response } = await api.DELETE('/webhooks/{id}', { params: { path: { id } } });
    if (!response.ok) return setActionError(asApiError(failure, response.status));
    toast(`Webhook “${item.name}” deleted`);
    navigate('/webhooks');
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
          <h1>{item.name}</h1>
          <dl>
            <dt>URL</dt>
            <dd class="url">{item.url}</dd>
            <dt>Scope</dt>
            <dd>{item.global ? 'global' : 'personal'}</dd>
            <dt>Notification types</dt>
            <dd>{item.notificationType.join(', ')}</dd>
            <dt>Created</dt>
            <dd>{new Date(item.createdAt).toLocaleString()}</dd>
          </dl>
          <div class="actions">
            <a class="button" href="#/history">
              Delivery history
            </a>
            <button type="button" class="danger" onClick={remove}>
              Delete webhook
            </button>
            <ActionError error={actionError} />
          </div>
        </>
      )}
    </section>
  );
}
