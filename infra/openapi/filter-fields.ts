/**
 * The table of payload fields per notification type in docs/webhooks.md (Payload filters),
 * generated from the notification catalog and the metadata schema: `npm run openapi -- --write`
 * rewrites it between its markers, and a unit test fails when it is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_NOTIFICATIONS, declaredMetadata, NOTIFICATION_NAMES } from '../../shared/notifications/catalog';
import { NotificationMetadataSchema } from '../../shared/notifications/metadata';

export const WEBHOOKS_DOC = join(import.meta.dirname, '../../docs/webhooks.md');
const START = '<!-- filter-fields:start -->';
const END = '<!-- filter-fields:end -->';

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

function table(): string {
  const open = NOTIFICATION_NAMES.filter((name) => declaredMetadata(name) === undefined);
  const closed = NOTIFICATION_NAMES.filter((name) => declaredMetadata(name) !== undefined);
  const specFields = Object.keys(NotificationMetadataSchema.shape)
    .filter((key) => key !== 'notificationType')
    .map((key) => `metadata.${key}`);
  return [
    'Every payload has `text` (string), `webhookId` (integer) and `webhookName` (string).',
    '',
    'Every payload has `metadata.notificationType` (fan-out sets it).',
    '',
    '| notification types | further `metadata` fields a filter may read |',
    '|---|---|',
    `| ${code(open)} | ${code(specFields)} (each may be absent or \`null\`), and any further key the producer adds |`,
    ...closed.map(
      (name) =>
        `| ${code([name])} | ${code(
          (declaredMetadata(name) ?? [])
            .filter((key) => key !== 'notificationType')
            .map((key) => `metadata.${key}`),
        )} |`,
    ),
    `| \`${ALL_NOTIFICATIONS}\` | the union of all of the above: any key |`,
  ].join('\n');
}

/** docs/webhooks.md with the generated table between its markers. */
export function withFilterFields(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/webhooks.md lacks the ${START} … ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${table()}\n${doc.slice(end)}`;
}

export function writeFilterFields(): void {
  writeFileSync(WEBHOOKS_DOC, withFilterFields(readFileSync(WEBHOOKS_DOC, 'utf8')));
}
