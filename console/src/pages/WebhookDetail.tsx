import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from '../api';
import { ErrorBanner } from '../errors';
import { navigate } from '../router';

type Webhook = components['schemas']['Webhook'];

export function WebhookDetail({ id }: { id: number }) {
  const [item, setItem] = useState<Webhook | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    void api
      .GET('/webhooks/{id}', { params: { path: { id } } })
      .then(({ data, error: failure, response }) => {
        if (data) setItem(data);
        else setError(asApiError(failure, response.status));
      });
  }, [id]);
  const remove = async () => {
    const { error: failure, response } = await api.DELETE('/webhooks/{id}', { params: { path: { id } } });
    if (response.ok) navigate('/webhooks');
    else setError(asApiError(failure, response.status));
  };
  return (
    <section>
      <p>
        <a href="#/webhooks">← Webhooks</a>
      </p>
      <ErrorBanner error={error} />
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
          </div>
        </>
      )}
    </section>
  );
}
