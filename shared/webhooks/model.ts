/**
 * Webhook and history shapes: request validation, stored items and the views the API returns.
 * Types derive from these schemas; the OpenAPI contracts (`api.ts`) reuse them.
 */
import * as z from 'zod';
import { documentedAs, idParam, queryBoolean, queryInt } from '../edge/validation';
import { NOTIFICATION_NAMES, SUBSCRIBABLE_NAMES } from '../notifications/catalogue';
import { NotificationMetadataSchema } from '../notifications/message';

export const MAX_WEBHOOKS_PER_REQUEST = 50;
const MAX_HISTORY_PAGE_SIZE = 100;
const MAX_HISTORY_OFFSET = 10_000;

export const MAX_WEBHOOK_PAGE_SIZE = 100;

const ActionTypeSchema = z.enum(['triggered', 'receive']);

/** An unknown notification name, named (shortened) with where the valid ones are listed. */
const notificationName = <const T extends readonly [string, ...string[]]>(names: T) =>
  z.enum(names, {
    error: (issue) =>
      `unknown notification type ${JSON.stringify(String(issue.input).slice(0, 100))}; GET /webhooks/actions lists the valid ones`,
  });

/** `ftp://…` and other schemes get their own message. */
const urlMessage = (input: unknown): string =>
  typeof input === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(input) && !/^https?:/i.test(input)
    ? 'the URL scheme must be http or https'
    : 'must be an absolute http or https URL';

/**
 * Control characters (C0 with NUL, CR and LF; DEL; C1) and the bidirectional controls that
 * can make a name display as something else (U+061C, U+200E/F, U+202A–E, U+2066–9).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it lists the control characters a name must not hold
const CONTROL_CHARACTERS = /^[^\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]*$/;

export const WebhookInputSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: (issue) => urlMessage(issue.input) })
    .max(2048)
    .describe('http(s) URL the notifications are POSTed to'),
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(
      CONTROL_CHARACTERS,
      'must not contain control characters (such as NUL, CR, LF) or bidirectional controls',
    ),
  global: z.boolean().describe('true: receives every subscribed notification (admins only)'),
  notificationType: z.array(notificationName(SUBSCRIBABLE_NAMES)).min(1).max(SUBSCRIBABLE_NAMES.length),
  actionType: ActionTypeSchema,
  secret: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .describe(
      'write-only signing secret: `whsec_<base64 of a 16–64 byte key>` or any string of at least 16 characters (its UTF-8 bytes are the key)',
    ),
});
export type WebhookInput = z.output<typeof WebhookInputSchema>;

export const CreateWebhooksBodySchema = z.strictObject({
  webhooks: z.array(z.unknown()).min(1).max(MAX_WEBHOOKS_PER_REQUEST),
});

/** A webhook as stored (the secret is a SecretBox ciphertext). */
export interface WebhookItem {
  id: number;
  name: string;
  url: string;
  global: boolean;
  notificationType: string[];
  actionType: 'triggered' | 'receive' | null;
  secret?: string;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
}

export const WebhookViewSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    url: z.string(),
    global: z.boolean(),
    notificationType: z.array(z.string()),
    actionType: ActionTypeSchema.nullable(),
    createdBy: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook', description: 'A webhook; the secret is write-only and never returned.' });
export type WebhookView = z.infer<typeof WebhookViewSchema>;

export function webhookView(item: WebhookItem): WebhookView {
  return {
    id: item.id,
    name: item.name,
    url: item.url,
    global: item.global,
    notificationType: item.notificationType,
    actionType: item.actionType ?? null,
    createdBy: item.createdBy,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

const WebhookErrorSchema = z.object({
  index: z.number().int().describe('position of the rejected webhook in the request'),
  name: z.string().optional(),
  url: z.string().optional(),
  message: z.string().describe('why it was rejected'),
});
export type WebhookError = z.infer<typeof WebhookErrorSchema>;

export const CreateWebhooksResponseSchema = z.object({
  createdWebhooks: z.array(WebhookViewSchema),
  errors: z.array(WebhookErrorSchema),
});

/** A page position: the base64url JSON of a store key with numeric attributes. */
export type PageKey = Record<string, number>;

export const NOT_A_TOKEN = 'not a nextToken this API returned';

function decodePageKey(token: string): PageKey | undefined {
  try {
    const key: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return undefined;
    const entries = Object.entries(key);
    if (entries.length === 0 || !entries.every(([, v]) => Number.isSafeInteger(v))) return undefined;
    return key as PageKey;
  } catch {
    return undefined;
  }
}

export const encodePageKey = (key: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/**
 * `GET /webhooks` paging. Without either parameter the answer is the spec's plain array of
 * every visible webhook; with one, it is a page `{webhooks, nextToken?}`.
 */
export const WebhookListQuerySchema = z.strictObject({
  pageSize: queryInt(1, MAX_WEBHOOK_PAGE_SIZE)
    .optional()
    .describe(`webhooks per page (default ${MAX_WEBHOOK_PAGE_SIZE}); sending it selects the paged answer`),
  nextToken: documentedAs(
    z
      .string()
      .max(2048)
      .transform((token, ctx) => {
        const key = decodePageKey(token);
        if (!key) ctx.addIssue({ code: 'custom', message: NOT_A_TOKEN });
        return key ?? {};
      }),
    { type: 'string', maxLength: 2048, description: 'the previous page’s nextToken' },
  ).optional(),
});
export type WebhookListQuery = z.output<typeof WebhookListQuerySchema>;

export const WebhookPageSchema = z
  .object({
    webhooks: z.array(WebhookViewSchema),
    nextToken: z.string().optional().describe('absent on the last page'),
  })
  .meta({ id: 'WebhookPage', description: 'One page of webhooks (sent when pageSize or nextToken is).' });
export type WebhookPage = z.infer<typeof WebhookPageSchema>;

/** The payload POSTed to a receiver (and stored as the history record's `request`). */
const DeliveryPayloadSchema = z.object({
  text: z.string(),
  metadata: NotificationMetadataSchema,
  webhookId: z.number().int(),
  webhookName: z.string(),
});
export type DeliveryPayload = z.infer<typeof DeliveryPayloadSchema>;

export const HistoryRecordSchema = z
  .object({
    id: z.number().int(),
    request: DeliveryPayloadSchema,
    response: z.record(z.string(), z.unknown()),
    statusCode: z.number().int(),
    notificationType: z.string(),
    webhooksActivityId: z.number().int().describe('the notification this delivery belongs to'),
    createdAt: z.string(),
    updatedAt: z.string(),
    webhooksId: z.number().int(),
    url: z.string(),
    name: z.string(),
    actionType: ActionTypeSchema.nullable(),
    createdBy: z.number().int(),
    deliveryId: z.string().describe('the webhook-id header: the same for every attempt of one delivery'),
    attempt: z.number().int().describe('1 for the first attempt; manual retries count on'),
    retryOf: z.number().int().optional().describe('manual retries: the id of the record that was re-sent'),
  })
  .meta({ id: 'WebhookHistoryRecord', description: 'One delivery attempt.' });
export type HistoryRecord = z.infer<typeof HistoryRecordSchema>;

export const HistoryQuerySchema = z.strictObject({
  offset: queryInt(0, MAX_HISTORY_OFFSET).default(0),
  pageSize: queryInt(1, MAX_HISTORY_PAGE_SIZE).default(20),
  sortField: z.enum(['createdAt', 'updatedAt', 'id']).default('createdAt'),
  sortOrder: documentedAs(
    z
      .string()
      .transform((v) => v.toLowerCase())
      .pipe(z.enum(['asc', 'desc'])),
    {
      type: 'string',
      enum: ['asc', 'desc'],
      description: 'Case-insensitive.',
    },
  ).default('desc'),
  notificationType: notificationName(NOTIFICATION_NAMES).optional(),
  includeGlobal: queryBoolean().default(false),
  includeUser: queryBoolean().default(true),
  successOrFailure: z.enum(['success', 'failure']).optional(),
});
export type HistoryQuery = z.output<typeof HistoryQuerySchema>;

export const HistoryPageSchema = z.object({
  count: z.number().int().describe('records matching the filters (all pages)'),
  records: z.array(HistoryRecordSchema),
});
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

export const IdParamSchema = z.object({ id: idParam() });
