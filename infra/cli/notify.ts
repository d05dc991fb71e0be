/**
 * `npm run --silent cli -- notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID]`:
 * publishes one notification to the notifications queue (through the same publisher module
 * producers use) and prints what was published as JSON. The caller (infra/cli/main.ts) has
 * already pointed the environment at the local cloud.
 */
import { parseArgs } from 'node:util';
import { publishNotification } from '../../shared/notifications/publisher';

export class NotifyUsageError extends Error {
  override name = 'NotifyUsageError';
}

const USAGE = 'usage: notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID]';

export function parseNotifyArgs(argv: string[]): {
  notificationType: string;
  text: string;
  metadata?: Record<string, unknown>;
  recipients?: number[];
  id?: string;
} {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        type: { type: 'string' },
        text: { type: 'string' },
        metadata: { type: 'string' },
        recipients: { type: 'string' },
        id: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new NotifyUsageError(`${(error as Error).message}\n${USAGE}`);
  }
  if (!values.type || values.text === undefined)
    throw new NotifyUsageError(`--type and --text are required\n${USAGE}`);
  let metadata: Record<string, unknown> | undefined;
  if (values.metadata !== undefined) {
    try {
      metadata = JSON.parse(values.metadata);
    } catch {
      throw new NotifyUsageError('--metadata must be a JSON object');
    }
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new NotifyUsageError('--metadata must be a JSON object');
    }
  }
  let recipients: number[] | undefined;
  if (values.recipients !== undefined) {
    recipients = values.recipients
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(Number);
    if (recipients.some((n) => !Number.isInteger(n) || n <= 0)) {
      throw new NotifyUsageError('--recipients must be a comma-separated list of user ids');
    }
  }
  return {
    notificationType: values.type,
    text: values.text,
    ...(metadata ? { metadata } : {}),
    ...(recipients ? { recipients } : {}),
    ...(values.id !== undefined ? { id: values.id } : {}),
  };
}

export async function notifyCommand(argv: string[]): Promise<void> {
  const input = parseNotifyArgs(argv);
  // The publisher validates against the published schema (unknown types, bad metadata …).
  const published = await publishNotification(input as Parameters<typeof publishNotification>[0]);
  console.log(JSON.stringify({ messageId: published.messageId, notification: published.message }, null, 2));
}
