/**
 * Operating one webhook from its detail page, each action with its own error next to it:
 * pause/resume (disable/enable), rotate the secret (shown once, with the end of the overlap) or, for
 * a v1a webhook, the key pair (its new public key shown; webhook-signing.tsx), send
 * a test, and recover since a time (a dry-run count first, then the job followed until its final
 * count). Pause and rotate ask for confirmation first. Editing is webhook-edit.tsx.
 */
import { useEffect, useState } from 'preact/hooks';
import { ALL_NOTIFICATIONS, NOTIFICATION_NAMES } from '../../shared/notifications/catalog';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { confirmAction } from './confirm';
import { outcomeLabel, succeeded } from './delivery-outcome';
import { ActionError } from './errors';
import { type Webhook, when } from './webhook-health';
import { NewPublicKey, OneTimeSecret } from './webhook-signing';

type Job = components['schemas']['WebhookRecoverJob'];
type HistoryRecord = components['schemas']['WebhookHistoryRecord'];

export interface ActionProps {
  webhook: Webhook;
  /** The webhook as the API answered it after a change. */
  onChanged: (webhook: Webhook, message: string) => void;
  /** Something new is in the webhook's history (a test send, re-sends). */
  onSent: (message: string) => void;
}

const input = (e: Event) => (e.target as HTMLInputElement).value;

export function PauseResume({ webhook, onChanged }: ActionProps) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const pause = async () => {
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/disable', {
      params: { path: { id: webhook.id } },
      body: reason.trim() ? { reason: reason.trim() } : {},
    });
    if (!data) return setError(asApiError(failure, response.status));
    // The reason now belongs to the paused webhook; the box is empty for the next pause.
    setReason('');
    onChanged(data, 'Webhook paused: no new deliveries until it is resumed.');
  };
  const resume = async () => {
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/enable', {
      params: { path: { id: webhook.id } },
    });
    if (data) onChanged(data, 'Webhook resumed.');
    else setError(asApiError(failure, response.status));
  };
  return (
    <div class="action">
      <h3>{webhook.status === 'enabled' ? 'Pause' : 'Resume'}</h3>
      {webhook.status === 'enabled' ? (
        <>
          <div class="field">
            <label for="pause-reason">Reason (optional)</label>
            <input id="pause-reason" value={reason} onInput={(e) => setReason(input(e))} />
          </div>
          <button
            type="button"
            class="danger"
            onClick={() =>
              void confirmAction({
                title: 'Pause this webhook?',
                message:
                  'No new deliveries are made while it is paused; attempts that come due are recorded as skipped and can be recovered after resuming.',
                confirmLabel: 'Pause webhook',
              }).then((ok) => {
                if (ok) void pause();
              })
            }
          >
            Pause webhook
          </button>
        </>
      ) : (
        <>
          <p class="hint">
            Deliveries skipped while it was not enabled can be re-sent with Recover since{' '}
            {when(webhook.disabledAt)}.
          </p>
          <button type="button" class="primary" onClick={() => void resume()}>
            Resume webhook
          </button>
        </>
      )}
      <ActionError error={error} />
    </div>
  );
}

/** What a rotation answered, shown until dismissed: a generated secret once, or the new public key. */
type Rotated =
  | { secret: string; until?: string | undefined }
  | { publicKey: string; until?: string | undefined };

export function RotateSecret({ webhook, onChanged }: ActionProps) {
  const [shown, setShown] = useState<Rotated | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  // A v1a webhook's key pair is made by the service: no secret (or key) can be brought.
  const key = webhook.signatureScheme === 'v1a';
  const rotate = async () => {
    setError(null);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/secret/rotate', {
      params: { path: { id: webhook.id } },
      body: {},
    });
    if (!data) return setError(asApiError(failure, response.status));
    const until = data.webhook.previousSecretExpiresAt;
    const publicKey = data.publicKey ?? data.webhook.publicKey;
    // The answer decides: a v1 rotation answers `secret`, a v1a one `publicKey` and no secret.
    if (!data.secret && publicKey) {
      setShown({ publicKey, until });
      onChanged(data.webhook, 'Signing key rotated.');
    } else {
      setShown({ secret: data.secret ?? '', until });
      onChanged(data.webhook, 'Secret rotated.');
    }
  };
  return (
    <div class="action">
      <h3>{key ? 'Signing key' : 'Signing secret'}</h3>
      {key && (
        <p class="hint">The service makes the new Ed25519 key pair; its private key never leaves it.</p>
      )}
      <button
        type="button"
        class="danger"
        onClick={() =>
          void confirmAction(
            key
              ? {
                  title: 'Rotate the signing key?',
                  message:
                    'A new Ed25519 key pair is made and its public key published at the JWKS URL. The current key keeps signing alongside it for the overlap window, so receivers can fetch the new key.',
                  confirmLabel: 'Rotate key',
                }
              : {
                  title: 'Rotate the signing secret?',
                  message:
                    'A new secret is generated and shown once. The current one keeps signing alongside it for the overlap window, so receivers can switch over.',
                  confirmLabel: 'Rotate secret',
                },
          ).then((ok) => {
            if (ok) void rotate();
          })
        }
      >
        {key ? 'Rotate key' : 'Rotate secret'}
      </button>
      {shown && 'publicKey' in shown && (
        <NewPublicKey publicKey={shown.publicKey} until={shown.until} onDismiss={() => setShown(null)} />
      )}
      {shown && 'secret' in shown && (
        <OneTimeSecret
          secret={shown.secret}
          previous={
            shown.until
              ? `The previous secret keeps signing until ${when(shown.until)}.`
              : 'There was no previous secret: only this one signs.'
          }
          onDismiss={() => setShown(null)}
        />
      )}
      <ActionError error={error} />
    </div>
  );
}

/** The types a test send may use: those the webhook subscribes to (every one under the wildcard). */
function testTypes(webhook: Webhook): string[] {
  return webhook.notificationType.includes(ALL_NOTIFICATIONS)
    ? [...NOTIFICATION_NAMES]
    : webhook.notificationType;
}

export function SendTest({ webhook, onSent }: ActionProps) {
  const types = testTypes(webhook);
  const [type, setType] = useState(types[0] ?? '');
  const [result, setResult] = useState<HistoryRecord | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setError(null);
    setResult(null);
    setBusy(true);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/test', {
      params: { path: { id: webhook.id } },
      body: { notificationType: type as (typeof NOTIFICATION_NAMES)[number] },
    });
    setBusy(false);
    if (!data) return setError(asApiError(failure, response.status));
    setResult(data);
    onSent(`Test sent: ${outcomeLabel(data)}.`);
  };
  return (
    <div class="action">
      <h3>Send a test</h3>
      <div class="field">
        <label for="test-type">Notification type</label>
        <select id="test-type" value={type} onChange={(e) => setType(input(e))}>
          {types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <button type="button" onClick={() => void send()} disabled={busy} aria-busy={busy}>
        Send test
      </button>
      {result && (
        <p class="result">
          Receiver answered{' '}
          <span class={`badge ${succeeded(result) ? 'ok' : 'bad'}`}>{outcomeLabel(result)}</span> in{' '}
          {result.durationMs ?? '?'} ms; webhook-id <span class="mono">{result.deliveryId}</span>
        </p>
      )}
      <ActionError error={error} />
    </div>
  );
}

/** A datetime-local value (the browser's time zone) for an instant. */
function localInput(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

export function Recover({ webhook, onSent }: ActionProps) {
  const defaultSince = webhook.disabledAt ? Date.parse(webhook.disabledAt) : Date.now() - 3_600_000;
  const [since, setSince] = useState(localInput(defaultSince));
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [count, setCount] = useState<number | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const sinceIso = () => new Date(since).toISOString();
  const body = () => ({ since: sinceIso(), onlyFailed });
  const dryRun = async () => {
    setError(null);
    setJob(null);
    setCount(null);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/recover', {
      params: { path: { id: webhook.id }, query: { dryRun: true } },
      body: body(),
    });
    if (data && 'dryRun' in data) setCount(data.deliveries);
    else setError(asApiError(failure, response.status));
  };
  const start = async () => {
    setError(null);
    const {
      data,
      error: failure,
      response,
    } = await api.POST('/webhooks/{id}/recover', {
      params: { path: { id: webhook.id }, query: { dryRun: false } },
      body: body(),
    });
    if (data && 'jobId' in data) setJob(data);
    else setError(asApiError(failure, response.status));
  };
  const finished = (j: Job) => j.status === 'completed' && j.resent >= j.enqueued;
  // Follow the job until it has queued everything and every re-send is recorded.
  useEffect(() => {
    if (!job || finished(job)) {
      if (job) onSent(`Recover finished: ${job.resent} deliveries re-sent.`);
      return;
    }
    const timer = setTimeout(async () => {
      const {
        data,
        error: failure,
        response,
      } = await api.GET('/webhooks/{id}/recover/{jobId}', {
        params: { path: { id: webhook.id, jobId: job.jobId } },
      });
      if (data) setJob(data);
      else setError(asApiError(failure, response.status));
    }, 1000);
    return () => clearTimeout(timer);
  }, [job]);
  return (
    <div class="action">
      <h3>Recover</h3>
      <div class="field">
        <label for="recover-since">Re-send deliveries since</label>
        <input
          id="recover-since"
          type="datetime-local"
          value={since}
          onInput={(e) => {
            setSince(input(e));
            setCount(null);
          }}
        />
      </div>
      <label class="check">
        <input
          type="checkbox"
          checked={onlyFailed}
          onChange={(e) => {
            setOnlyFailed((e.target as HTMLInputElement).checked);
            setCount(null);
          }}
        />{' '}
        only deliveries whose latest attempt failed
      </label>
      <div class="actions">
        <button type="button" onClick={() => void dryRun()}>
          Count deliveries
        </button>
        {count !== null && count > 0 && !job && (
          <button type="button" class="primary" onClick={() => void start()}>
            Re-send {count} deliveries
          </button>
        )}
      </div>
      {count !== null && (
        <p class="result" data-dry-run={count}>
          {count === 0 ? 'Nothing to re-send in this window.' : `${count} deliveries would be re-sent.`}
        </p>
      )}
      {job && (
        <fieldset class="result">
          <legend>Recover job</legend>
          <progress max={Math.max(job.enqueued, 1)} value={job.resent} aria-label="Re-sent" />{' '}
          <span data-job-status={finished(job) ? 'finished' : 'running'}>
            {finished(job)
              ? `Finished: ${job.resent} re-sent of ${job.deliveries} deliveries in the window (${job.alreadyDelivered} already delivered).`
              : `Running: ${job.resent} of ${job.enqueued} re-sent, ${job.scanned} entries read…`}
          </span>
        </fieldset>
      )}
      <ActionError error={error} />
    </div>
  );
}
