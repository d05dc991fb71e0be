import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, asApiError, rawCall } from '../api';
import { ErrorBanner, fieldErrors } from '../errors';
import { Loading } from '../loading';
import { toast } from '../toast';
import {
  DestinationFields,
  destinationOf,
  draftOf,
  type Target,
  TargetChoice,
  targetText,
} from '../webhook-destination';
import { FilterField } from '../webhook-filter';
import { HealthSummary, ownerOf, type Webhook, WebhookStatusBadge } from '../webhook-health';
import { OrderedSwitch } from '../webhook-ordering';
import { createHint, type Scheme, SchemeChoice } from '../webhook-signing';
import { GlobalSwitch, TypePicker } from '../webhook-types';
import '../webhooks.css';

function CreateWebhook({ onCreated }: { onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const [target, setTarget] = useState<Target>('url');
  const [url, setUrl] = useState('');
  const [draft, setDraft] = useState(draftOf(undefined));
  const [secret, setSecret] = useState('');
  const [scheme, setScheme] = useState<Scheme>('v1');
  const [global, setGlobal] = useState(false);
  const [actionType, setActionType] = useState<'triggered' | 'receive'>('receive');
  const [types, setTypes] = useState<Set<string>>(new Set());
  const [filter, setFilter] = useState('');
  const [ordered, setOrdered] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async () => {
    setError(null);
    const entry = {
      name,
      // A webhook has a URL or an AWS destination, never both.
      ...(target === 'url' ? { url } : { destination: destinationOf(target, draft) }),
      notificationType: [...types],
      actionType,
      global,
      // A v1a webhook's key pair is made by the service: a secret beside v1a is refused, never sent.
      ...(scheme === 'v1a' ? { signatureScheme: scheme } : secret ? { secret } : {}),
      ...(filter.trim() ? { filter: filter.trim() } : {}),
      ...(ordered ? { ordered } : {}),
    };
    const result = await rawCall('POST', '/webhooks', {
      text: JSON.stringify({ webhooks: [entry] }),
      contentType: 'application/json',
    });
    const answer = result.json as ApiError & { errors?: { message?: string }[] };
    if (result.status >= 400) {
      // Per-entry problems come back in `errors`; show the entry's own message.
      const first = answer.errors?.[0]?.message;
      setError(first ? { ...answer, message: first } : answer);
      return;
    }
    setName('');
    setUrl('');
    setDraft(draftOf(undefined));
    setSecret('');
    setScheme('v1');
    setTypes(new Set());
    setFilter('');
    setOrdered(false);
    onCreated(name);
  };
  const errors = fieldErrors(error);
  const fieldError = (field: string) => Object.entries(errors).find(([k]) => k.endsWith(field))?.[1] ?? null;
  return (
    <form
      class="card"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2>New webhook</h2>
      <div class="field">
        <label for="wh-name">Name *</label>
        <input id="wh-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        {fieldError('name') && <span class="field-error">{fieldError('name')}</span>}
      </div>
      <TargetChoice id="wh-target" value={target} onChange={setTarget} />
      {target === 'url' ? (
        <div class="field">
          <label for="wh-url">URL *</label>
          <input
            id="wh-url"
            type="url"
            value={url}
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
          {fieldError('url') && <span class="field-error">{fieldError('url')}</span>}
        </div>
      ) : (
        <DestinationFields
          idPrefix="wh"
          type={target}
          draft={draft}
          onChange={setDraft}
          required
          fieldError={fieldError}
        />
      )}
      <SchemeChoice
        id="wh-scheme"
        value={scheme}
        onChange={(next) => {
          setScheme(next);
          if (next === 'v1a') setSecret('');
        }}
        hint={createHint(scheme)}
        error={fieldError('signatureScheme')}
      />
      {scheme === 'v1' && (
        <div class="field">
          <label for="wh-secret">Signing secret (optional, shown never again)</label>
          <input
            id="wh-secret"
            type="password"
            autocomplete="new-password"
            value={secret}
            onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
          />
          {fieldError('secret') && <span class="field-error">{fieldError('secret')}</span>}
        </div>
      )}
      <div class="field">
        <label for="wh-action">Action type *</label>
        <select
          id="wh-action"
          value={actionType}
          onChange={(e) => setActionType((e.target as HTMLSelectElement).value as 'triggered' | 'receive')}
        >
          <option value="receive">receive</option>
          <option value="triggered">triggered</option>
        </select>
      </div>
      <OrderedSwitch id="wh-ordered" checked={ordered} onChange={setOrdered} error={fieldError('ordered')} />
      <GlobalSwitch id="wh-global" checked={global} onChange={setGlobal} />
      <TypePicker selected={types} onChange={setTypes} />
      <FilterField
        id="wh-filter"
        value={filter}
        onChange={setFilter}
        types={types}
        error={fieldError('filter')}
      />
      <ErrorBanner error={error} />
      <button type="submit" class="primary">
        Create webhook
      </button>
    </form>
  );
}

export function Webhooks() {
  const [items, setItems] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    void api.GET('/webhooks').then(({ data, error: failure, response }) => {
      // Without paging parameters the API answers the plain list (the spec's shape).
      if (data) setItems(Array.isArray(data) ? data : data.webhooks);
      else setError(asApiError(failure, response.status));
    });
  }, [tick]);
  return (
    <section>
      <h1>Webhooks</h1>
      <ErrorBanner error={error} />
      {items === null && !error && <Loading label="Loading webhooks…" />}
      {items && items.length === 0 && <p>No webhooks yet.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL or AWS destination</th>
                <th scope="col">Status</th>
                <th scope="col">Health (24 h)</th>
                <th scope="col">Scope</th>
                <th scope="col">Owner</th>
                <th scope="col">Types</th>
              </tr>
            </thead>
            <tbody>
              {items.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a href={`#/webhooks/${w.id}`}>{w.name}</a>
                  </td>
                  <td class="url">{targetText(w)}</td>
                  <td>
                    <WebhookStatusBadge webhook={w} />
                  </td>
                  <td>
                    <HealthSummary webhook={w} />
                  </td>
                  <td>{w.global ? 'global' : 'personal'}</td>
                  <td>{ownerOf(w)}</td>
                  <td>{w.notificationType.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateWebhook
        onCreated={(name) => {
          toast(`Webhook “${name}” created`);
          setTick((t) => t + 1);
        }}
      />
    </section>
  );
}
