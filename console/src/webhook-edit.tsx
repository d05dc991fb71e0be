/**
 * Editing a webhook (PATCH /webhooks/{id}, only the fields that changed): name, URL or AWS
 * destination (webhook-destination.tsx), action type, rate limit, types, the payload filter (with
 * its live preview), the signature scheme (a switch to `v1` answers a generated secret once,
 * which the detail page shows; webhook-signing.tsx), ordered delivery per key
 * (webhook-ordering.tsx), and the global switch for admins; each
 * refusal shown next to its field.
 */
import { useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { ActionError, fieldErrors } from './errors';
import type { ActionProps } from './webhook-actions';
import {
  DestinationFields,
  destinationOf,
  draftOf,
  sameDestination,
  type Target,
  TargetChoice,
} from './webhook-destination';
import { FilterField } from './webhook-filter';
import { OrderedSwitch } from './webhook-ordering';
import { type Scheme, SchemeChoice, switchHint } from './webhook-signing';
import { GlobalSwitch, TypePicker } from './webhook-types';

const input = (e: Event) => (e.target as HTMLInputElement).value;

/** The secret a switch to `v1` generated (answered once), and until when the old key still signs. */
export interface SwitchedSecret {
  secret: string;
  until?: string | undefined;
}

export function EditWebhook({
  webhook,
  onChanged,
  onClose,
  onSecret,
}: ActionProps & { onClose: () => void; onSecret: (shown: SwitchedSecret) => void }) {
  const [name, setName] = useState(webhook.name);
  const [target, setTarget] = useState<Target>(webhook.destination?.type ?? 'url');
  const [url, setUrl] = useState(webhook.url ?? '');
  const [draft, setDraft] = useState(draftOf(webhook.destination));
  const [types, setTypes] = useState<Set<string>>(new Set(webhook.notificationType));
  const [actionType, setActionType] = useState(webhook.actionType ?? 'receive');
  const [global, setGlobal] = useState(webhook.global);
  const [rate, setRate] = useState(webhook.maxDeliveriesPerSecond?.toString() ?? '');
  const [filter, setFilter] = useState(webhook.filter ?? '');
  const [scheme, setScheme] = useState<Scheme>(webhook.signatureScheme);
  const [ordered, setOrdered] = useState(webhook.ordered);
  const [error, setError] = useState<ApiError | null>(null);
  const save = async () => {
    setError(null);
    const body: components['schemas']['WebhookPatch'] = {};
    if (name !== webhook.name) body.name = name;
    // A destination replaces the URL and a URL the destination (docs/webhooks.md).
    if (target === 'url' && url !== webhook.url) body.url = url;
    if (target !== 'url') {
      const destination = destinationOf(target, draft);
      if (!sameDestination(destination, webhook.destination)) body.destination = destination;
    }
    const sameTypes =
      types.size === webhook.notificationType.length && webhook.notificationType.every((t) => types.has(t));
    if (!sameTypes) body.notificationType = [...types] as typeof body.notificationType;
    if (actionType !== webhook.actionType) body.actionType = actionType;
    if (global !== webhook.global) body.global = global;
    const limit = rate.trim() === '' ? undefined : Number(rate);
    if (limit !== webhook.maxDeliveriesPerSecond) body.maxDeliveriesPerSecond = limit ?? null;
    // An emptied filter removes it (`null`, the merge patch's removal).
    if (filter.trim() !== (webhook.filter ?? '')) body.filter = filter.trim() === '' ? null : filter.trim();
    if (scheme !== webhook.signatureScheme) body.signatureScheme = scheme;
    if (ordered !== webhook.ordered) body.ordered = ordered;
    if (Object.keys(body).length === 0) return onClose();
    const {
      data,
      error: failure,
      response,
    } = await api.PATCH('/webhooks/{id}', {
      params: { path: { id: webhook.id } },
      body,
    });
    if (!data) return setError(asApiError(failure, response.status));
    // Only a switch from v1a to v1 answers a secret: shown once, by the detail page (this form closes).
    if (data.secret) onSecret({ secret: data.secret, until: data.previousSecretExpiresAt });
    onChanged(
      data,
      body.signatureScheme ? `Webhook saved. Now signed ${body.signatureScheme}.` : 'Webhook saved.',
    );
  };
  const errors = fieldErrors(error);
  const fieldError = (field: string) => Object.entries(errors).find(([k]) => k.endsWith(field))?.[1];
  return (
    <form
      class="card"
      aria-labelledby="edit-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <h2 id="edit-title">Edit webhook</h2>
      <div class="field">
        <label for="edit-name">Name</label>
        <input id="edit-name" value={name} onInput={(e) => setName(input(e))} />
        {fieldError('name') && <span class="field-error">{fieldError('name')}</span>}
      </div>
      <TargetChoice id="edit-target" value={target} onChange={setTarget} />
      {target === 'url' ? (
        <div class="field">
          <label for="edit-url">URL</label>
          <input id="edit-url" type="url" value={url} onInput={(e) => setUrl(input(e))} />
          {fieldError('url') && <span class="field-error">{fieldError('url')}</span>}
        </div>
      ) : (
        <DestinationFields
          idPrefix="edit"
          type={target}
          draft={draft}
          onChange={setDraft}
          required={false}
          fieldError={fieldError}
        />
      )}
      <div class="field">
        <label for="edit-action">Action type</label>
        <select
          id="edit-action"
          value={actionType}
          onChange={(e) => setActionType(input(e) as 'triggered' | 'receive')}
        >
          <option value="receive">receive</option>
          <option value="triggered">triggered</option>
        </select>
      </div>
      <div class="field">
        <label for="edit-rate">Maximum deliveries per second (empty: no limit)</label>
        <input id="edit-rate" inputMode="decimal" value={rate} onInput={(e) => setRate(input(e))} />
        {fieldError('maxDeliveriesPerSecond') && (
          <span class="field-error">{fieldError('maxDeliveriesPerSecond')}</span>
        )}
      </div>
      <SchemeChoice
        id="edit-scheme"
        value={scheme}
        onChange={setScheme}
        hint={switchHint(webhook.signatureScheme)}
        error={fieldError('signatureScheme')}
      />
      <OrderedSwitch
        id="edit-ordered"
        checked={ordered}
        onChange={setOrdered}
        error={fieldError('ordered')}
      />
      <GlobalSwitch id="edit-global" checked={global} onChange={setGlobal} />
      <TypePicker selected={types} onChange={setTypes} />
      {fieldError('notificationType') && <span class="field-error">{fieldError('notificationType')}</span>}
      <FilterField
        id="edit-filter"
        value={filter}
        onChange={setFilter}
        types={types}
        error={fieldError('filter')}
      />
      <ActionError error={error} />
      <div class="actions">
        <button type="submit" class="primary">
          Save
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
