/**
 * Renders the notification message JSON Schema from the zod schema. Regenerate the published
 * file with `npx tsx shared/notifications/json-schema.ts --write`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { NotificationMessageSchema } from './message';

export const SCHEMA_FILE = join(import.meta.dirname, '..', '..', 'docs', 'notification-message.schema.json');

export function renderNotificationSchema(): string {
  const schema = z.toJSONSchema(NotificationMessageSchema, { target: 'draft-2020-12', io: 'input' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === '--write'
) {
  writeFileSync(SCHEMA_FILE, renderNotificationSchema());
  console.log(`wrote ${SCHEMA_FILE}`);
}
