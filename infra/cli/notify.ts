/**
 * `npm run --silent cli -- notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID]
 * [--ordering-key K]`: publishes one notification (through the same publisher module producers
 * use: a keyed one goes to the ordered intake) and prints what was published as JSON.
 *
 * `notify --file F`: publishes every line of F, a notification message per line (JSON lines, the
 * published schema), in the file's order: notifications of one key reach ordered webhooks in that
 * order. Every line is checked before any is sent; the first bad line fails the command (exit 1)
 * and is named. Prints one JSON line per notification published.
 *
 * The caller (infra/cli/main.ts) has already pointed the environment at the local cloud.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  buildNotification,
  publishNotification,
  publishNotifications,
} from '../../shared/notifications/publisher';

export class NotifyUsageError extends Error {
  override name = 'NotifyUsageError';
}

const USAGE =
  'usage: notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID] [--ordering-key K]\n       notify --file F   (JSON lines: one notification message per line, published in order)';

export function parseNotifyArgs(argv: string[]): {
  notificationType: string;
  text: string;
  metadata?: Record<string, unknown>;
  recipients?: number[];
  id?: string;
  orderingKey?: string;
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
        'ordering-key': { type: 'string' },
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
    ...(values['ordering-key'] !== undefined ? { orderingKey: values['ordering-key'] } : {}),
  };
}

/**
 * The notification messages of a JSON-lines file, each checked against the published schema.
 * Blank lines are skipped; the first line that is not JSON or not a notification message throws,
 * naming its line number and what is wrong.
 */
export function notificationsOfFile(text: string): ReturnType<typeof buildNotification>[] {
  const messages: ReturnType<typeof buildNotification>[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1}: not JSON`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new Error(`line ${i + 1}: not a JSON object`);
    try {
      messages.push(buildNotification(json as Parameters<typeof buildNotification>[0]));
    } catch (error) {
      throw new Error(`line ${i + 1}: ${(error as Error).message}`);
    }
  });
  if (messages.length === 0) throw new Error('the file has no notification');
  return messages;
}

async function notifyFromFile(argv: string[]): Promise<void> {
  const [flag, file, ...more] = argv;
  if (flag !== '--file' || file === undefined || more.length > 0)
    throw new NotifyUsageError(`--file F takes no other option\n${USAGE}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const published = await publishNotifications(notificationsOfFile(text));
  for (const { messageId, message } of published)
    console.log(JSON.stringify({ messageId, notification: message }));
}

export async function notifyCommand(argv: string[]): Promise<void> {
  if (argv.includes('--file')) return notifyFromFile(argv);
  const input = parseNotifyArgs(argv);
  // The publisher validates against the published schema (unknown types, bad metadata …).
  const published = await publishNotification(input as Parameters<typeof publishNotification>[0]);
  console.log(JSON.stringify({ messageId: published.messageId, notification: published.message }, null, 2));
}
