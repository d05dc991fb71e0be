/**
 * `webhooks …` CLI commands: a webhook's day-2 operations through the HTTP API and its typed
 * client (./api.ts), so they obey the same permissions as any other caller.
 *
 *   webhooks disable --id ID [--reason TEXT]     pause a webhook
 *   webhooks enable --id ID                      resume it
 *   webhooks rotate-secret --id ID [--secret S]  new signing secret (a generated one is printed once)
 *   webhooks test --id ID [--type NAME]          send a signed example notification now
 *   webhooks recover --id ID --since T [--until T] [--all] [--dry-run]
 *                                                re-send the window's failed (--all: every) deliveries
 *                                                as a job; --dry-run only counts them
 *   webhooks recover-status --id ID --job JOB    the job's progress and final counts
 *   webhooks keys --id ID [--state parked|held|draining] [--next TOKEN]
 *                                                an ordered webhook's keys that are not flowing
 *   webhooks resume-key --id ID --ordering-key K  try a parked key's head again, then the rest in order
 *   webhooks skip-key --id ID --ordering-key K [--head DELIVERY_ID]
 *                                                give a parked key's head up, then the rest in order
 *
 * The key comes from `--key KEY` or `CAUSEWAY_API_KEY`.
 */
import { parseArgs } from 'node:util';
import type { NotificationName } from '../../shared/notifications/catalog';
import { ApiUsageError, answerOf, targetClient } from './api';

function webhookId(raw: string | undefined, command: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new ApiUsageError(`webhooks ${command} needs --id ID (a positive integer)`);
  return id;
}

function orderingKey(raw: string | undefined, command: string): string {
  if (raw === undefined || raw === '')
    throw new ApiUsageError(
      `webhooks ${command} needs --ordering-key K (the key, as published; it is percent-encoded for you)`,
    );
  return raw;
}

/** Runs one `webhooks` command and returns what the API answered (an error answer throws). */
export async function webhooksCommand(argv: string[]): Promise<unknown> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      key: { type: 'string' },
      id: { type: 'string' },
      reason: { type: 'string' },
      secret: { type: 'string' },
      type: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      all: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      job: { type: 'string' },
      state: { type: 'string' },
      next: { type: 'string' },
      'ordering-key': { type: 'string' },
      head: { type: 'string' },
    },
    strict: true,
  });
  const client = targetClient(values.key, 'webhooks');
  switch (sub) {
    case 'disable': {
      const path = { id: webhookId(values.id, sub) };
      return answerOf(
        await client.POST('/webhooks/{id}/disable', {
          params: { path },
          body: values.reason === undefined ? {} : { reason: values.reason },
        }),
      );
    }
    case 'enable':
      return answerOf(
        await client.POST('/webhooks/{id}/enable', { params: { path: { id: webhookId(values.id, sub) } } }),
      );
    case 'rotate-secret':
      return answerOf(
        await client.POST('/webhooks/{id}/secret/rotate', {
          params: { path: { id: webhookId(values.id, sub) } },
          body: values.secret === undefined ? {} : { secret: values.secret },
        }),
      );
    case 'test':
      return answerOf(
        await client.POST('/webhooks/{id}/test', {
          params: { path: { id: webhookId(values.id, sub) } },
          body: values.type === undefined ? {} : { notificationType: values.type as NotificationName },
        }),
      );
    case 'recover': {
      if (values.since === undefined)
        throw new ApiUsageError('webhooks recover needs --since T (ISO 8601, e.g. 2026-01-31T12:00:00Z)');
      return answerOf(
        await client.POST('/webhooks/{id}/recover', {
          params: { path: { id: webhookId(values.id, sub) }, query: { dryRun: values['dry-run'] } },
          body: {
            since: values.since,
            ...(values.until === undefined ? {} : { until: values.until }),
            onlyFailed: !values.all,
          },
        }),
      );
    }
    case 'recover-status': {
      if (!values.job) throw new ApiUsageError('webhooks recover-status needs --job JOB (the job id)');
      return answerOf(
        await client.GET('/webhooks/{id}/recover/{jobId}', {
          params: { path: { id: webhookId(values.id, sub), jobId: values.job } },
        }),
      );
    }
    case 'keys': {
      const state = values.state;
      if (state !== undefined && state !== 'parked' && state !== 'held' && state !== 'draining')
        throw new ApiUsageError('webhooks keys --state takes parked, held or draining');
      return answerOf(
        await client.GET('/webhooks/{id}/ordering-keys', {
          params: {
            path: { id: webhookId(values.id, sub) },
            query: {
              ...(state !== undefined ? { state } : {}),
              ...(values.next !== undefined ? { nextToken: values.next } : {}),
            },
          },
        }),
      );
    }
    case 'resume-key':
      return answerOf(
        await client.POST('/webhooks/{id}/ordering-keys/{key}/resume', {
          params: { path: { id: webhookId(values.id, sub), key: orderingKey(values['ordering-key'], sub) } },
        }),
      );
    case 'skip-key':
      return answerOf(
        await client.POST('/webhooks/{id}/ordering-keys/{key}/skip', {
          params: { path: { id: webhookId(values.id, sub), key: orderingKey(values['ordering-key'], sub) } },
          body: values.head === undefined ? {} : { headDeliveryId: values.head },
        }),
      );
    default:
      throw new ApiUsageError(`unknown webhooks command "${sub ?? ''}"`);
  }
}
