/**
 * A webhook's payload filter (a CEL expression, docs/webhooks.md) with its preview shown live
 * while the user types: after a short pause the expression goes to POST /webhooks/filters/preview
 * and the field shows how many of the newest notifications the user may see it would have
 * delivered, or why the service refuses it (line and column, or the field it names). Only the
 * newest answer is shown; an answer to text typed since is dropped.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ALL_NOTIFICATIONS } from '../../shared/notifications/catalog';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { fieldErrors } from './errors';

type Preview = components['schemas']['WebhookFilterPreview'];

/** How long typing must pause before the preview is asked for. */
const PAUSE_MS = 400;
/** The newest notifications a live preview is evaluated against. */
const PREVIEW_LIMIT = 100;

/** The one type a preview can be narrowed to: the only one chosen, the wildcard aside. */
function singleType(types: ReadonlySet<string>): string | undefined {
  const chosen = [...types].filter((t) => t !== ALL_NOTIFICATIONS);
  return chosen.length === 1 && !types.has(ALL_NOTIFICATIONS) ? chosen[0] : undefined;
}

function PreviewSummary({ preview }: { preview: Preview }) {
  if (preview.evaluated === 0)
    return <span>No recent notifications to preview against yet; the filter is valid.</span>;
  const first = preview.failures[0];
  return (
    <span>
      Would deliver <strong data-preview-matched>{preview.matched}</strong> of {preview.evaluated} recent
      notifications
      {preview.errors > 0 && (
        <>
          {' '}
          ({preview.errors} failed to evaluate, e.g. <code>{first?.error}</code>)
        </>
      )}
      .
    </span>
  );
}

export function FilterField({
  id,
  value,
  onChange,
  types,
  error,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  types: ReadonlySet<string>;
  /** The create or save call's refusal of the filter, if any. */
  error?: string | null;
}) {
  const [preview, setPreview] = useState<Preview | null>(null);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const asked = useRef(0);
  const notificationType = singleType(types);
  useEffect(() => {
    const expression = value.trim();
    const ask = ++asked.current;
    setPreview(null);
    setRefusal(null);
    if (expression === '') {
      setBusy(false);
      return;
    }
    setBusy(true);
    const timer = window.setTimeout(async () => {
      const {
        data,
        error: failure,
        response,
      } = await api.POST('/webhooks/filters/preview', {
        body: {
          filter: expression,
          limit: PREVIEW_LIMIT,
          ...(notificationType ? { notificationType: notificationType as never } : {}),
        },
      });
      if (ask !== asked.current) return;
      setBusy(false);
      if (data) setPreview(data);
      else setRefusal(asApiError(failure, response.status));
    }, PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [value, notificationType]);
  const shownError = error ?? (refusal ? (fieldErrors(refusal).filter ?? refusal.message) : null);
  return (
    <div class="field">
      <label for={id}>Filter (optional, a CEL expression over the payload)</label>
      <textarea
        id={id}
        rows={2}
        spellcheck={false}
        placeholder='metadata.notificationType == "accessRequested" && metadata.dataSourceId in [42, 43]'
        value={value}
        aria-invalid={shownError ? 'true' : undefined}
        aria-describedby={`${id}-preview`}
        onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
      />
      <p id={`${id}-preview`} class="filter-preview" aria-live="polite" aria-busy={busy}>
        {shownError ? (
          <span class="field-error">{shownError}</span>
        ) : busy ? (
          'Checking the filter…'
        ) : preview ? (
          <PreviewSummary preview={preview} />
        ) : (
          'No filter: every notification of the chosen types is delivered.'
        )}
      </p>
    </div>
  );
}
