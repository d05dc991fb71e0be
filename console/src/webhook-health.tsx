/**
 * A webhook's state at a glance: its status badge (with the reason and time it was disabled)
 * and its health figures as the API computes them (`health` on GET /webhooks and
 * GET /webhooks/{id}; latency only on the latter). Nothing is computed here but formatting.
 */
import type { components } from '../../shared/openapi/api-types';
import { me } from './session';

export type Webhook = components['schemas']['Webhook'];
type Health = components['schemas']['WebhookHealth'];

const TONE: Record<Webhook['status'], string> = { enabled: 'ok', disabled: 'muted', autoDisabled: 'bad' };
const LABEL: Record<Webhook['status'], string> = {
  enabled: 'enabled',
  disabled: 'paused',
  autoDisabled: 'disabled by the service',
};

export const when = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

function percent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—';
  return `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`;
}

export function WebhookStatusBadge({ webhook }: { webhook: Webhook }) {
  const since = webhook.disabledAt ? ` since ${when(webhook.disabledAt)}` : '';
  return (
    <span class={`badge ${TONE[webhook.status]}`} data-status={webhook.status}>
      {LABEL[webhook.status]}
      {webhook.status !== 'enabled' && (webhook.disabledReason || since) ? (
        <span class="reason">
          {webhook.disabledReason ? `: ${webhook.disabledReason}` : ''}
          {since}
        </span>
      ) : null}
    </span>
  );
}

/** One line for the list: failing or healthy, and the 24 h success rate. */
export function HealthSummary({ webhook }: { webhook: Webhook }) {
  const health = webhook.health;
  if (!health || health.attempts24h === 0) {
    return <span class="muted">{health?.lastAttemptAt ? 'no attempts in 24 h' : 'no deliveries yet'}</span>;
  }
  const failing = health.consecutiveFailures > 0;
  return (
    <span class={failing ? 'health bad' : 'health ok'}>
      {percent(health.successRate24h)} of {health.attempts24h} ok
      {failing ? ` · ${health.consecutiveFailures} failing in a row` : ''}
    </span>
  );
}

/** The detail page's figures, each labelled. */
export function HealthFigures({ webhook }: { webhook: Webhook }) {
  const health: Partial<Health> = webhook.health ?? {};
  const latency = health.latency24h;
  return (
    <section class="card" aria-labelledby="health-title">
      <h2 id="health-title">Health</h2>
      <dl class="figures">
        <dt>Last success</dt>
        <dd data-figure="lastSuccessAt">{when(health.lastSuccessAt)}</dd>
        <dt>Failing since</dt>
        <dd data-figure="failingSince">
          {webhook.failingSince
            ? `${when(webhook.failingSince)} (${health.consecutiveFailures ?? 0} failed in a row)`
            : 'not failing'}
        </dd>
        <dt>Success rate (24 h)</dt>
        <dd data-figure="successRate24h">
          {percent(health.successRate24h)}
          {health.attempts24h ? ` of ${health.attempts24h} attempts` : ''}
        </dd>
        <dt>Receiver latency p50 (24 h)</dt>
        <dd data-figure="p50">{latency ? `${latency.p50Ms} ms` : '—'}</dd>
        <dt>Receiver latency p95 (24 h)</dt>
        <dd data-figure="p95">
          {latency ? `${latency.p95Ms} ms` : '—'}
          {latency ? <span class="hint"> over the newest {latency.samples} attempts</span> : null}
        </dd>
        {webhook.ordered && (
          <>
            <dt>Parked keys</dt>
            <dd data-figure="parkedKeys">
              {health.parkedKeys ?? 0}
              {health.parkedKeys ? (
                <span class="hint"> ordering keys stopped on a failing head (listed under Parked keys)</span>
              ) : null}
            </dd>
          </>
        )}
        {webhook.filter !== undefined && (
          <>
            <dt>Filter errors (24 h)</dt>
            <dd data-figure="filterErrors">
              {health.filterErrors ?? 0}
              {health.filterErrors ? (
                <span class="hint"> notifications not delivered because the filter failed to evaluate</span>
              ) : null}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** Who owns a webhook, as the signed-in user reads it. */
export function ownerOf(webhook: Pick<Webhook, 'createdBy'>): string {
  return webhook.createdBy === me.value?.userId ? 'you' : `user #${webhook.createdBy}`;
}
