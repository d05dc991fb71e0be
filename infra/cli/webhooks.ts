/**
 * `webhooks …` CLI commands: a webhook's day-2 operations through the HTTP API and its typed
 * client (./api.ts), so they obey the same permissions as any other caller.
 *
 *   webhooks disable --id ID [--reason TEXT]     pause a webhook
 *   webhooks enable --id ID                      resume it
 *   webhooks rotate-secret --id ID [--secret S]  new signing secret (a generated one is printed once)
 *   webhooks test --id ID [--type NAME]          send a signed example notification now
 *
 * The key comes from `--key KEY` or `CAUSEWAY_API_KEY`.
 */
import { parseArgs } from 'node:util';
import type { NotificationName } from '../../shared/notifications/catalogue';
import { ApiUsageError, answerOf, targetClient } from './api';

function webhookId(raw: string | undefined, command: string): number {
  const id = Number(raw);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new ApiUsageError(`webhooks ${command} needs --id ID (a positive integer)`);
  return id;
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
    default:
      throw new ApiUsageError(`unknown webhooks command "${sub ?? ''}"`);
  }
}
