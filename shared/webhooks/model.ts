/**
 * Webhook shapes: request validation, the stored item and the views the API returns. Types derive
 * from these schemas; the route contracts (`api/contracts.ts`) reuse them. The delivery history's
 * shapes are history-model.ts; the page tokens of a listing, page-token.ts.
 */
import * as z from 'zod/mini';
import { idParam, queryInt } from '../edge/validation';
import { SUBSCRIBABLE_NAMES } from '../notifications/catalog';
import { notificationName } from '../notifications/name-schema';
import { described, withMeta } from '../schema-meta';
import { withUnknownFieldHints } from '../validation';
import { ActionTypeSchema } from './action-type';
import { TrustPolicySchema } from './aws-trust';
import { type Destination, DestinationSchema } from './destination';
import { filter } from './fields';
import { nextTokenParam } from './page-token';
import { statusOf } from './status';
import { MAX_DELIVERIES_PER_SECOND, MIN_DELIVERIES_PER_SECOND } from './throttle-limits';

export const MAX_WEBHOOKS_PER_REQUEST = 50;

export const MAX_WEBHOOK_PAGE_SIZE = 100;

/** `ftp://…` and other schemes get their own message. */
const urlMessage = (input: unknown): string =>
  typeof input === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(input) && !/^https?:/i.test(input)
    ? 'the URL scheme must be http or https'
    : 'must be an absolute http or https URL';

/**
 * Control characters (C0 with NUL, CR and LF; DEL; C1) and the bidirectional controls that
 * can make a name display as something else (U+061C, U+200E/F, U+202A–E, U+2066–9).
 */
export const CONTROL_CHARACTERS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: it lists the control characters a name must not hold
  /^[^\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]*$/;

const maxDeliveriesPerSecond = described(
  z.number().check(z.gte(MIN_DELIVERIES_PER_SECOND), z.lte(MAX_DELIVERIES_PER_SECOND)),
  'deliveries per second this webhook receives at most (0.01, one per 100 s, to 1000); more are delayed (never failed or dropped). Absent: no limit',
);

/** How a webhook's deliveries are signed (ADR 0018). */
export const SIGNATURE_SCHEMES = ['v1', 'v1a'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

const signatureScheme = described(
  z.enum(SIGNATURE_SCHEMES, {
    error: () => 'must be "v1" (HMAC with the secret, unsigned without one) or "v1a" (Ed25519)',
  }),
  "`v1` (default): HMAC-SHA256 with the webhook's secret, unsigned without one. `v1a`: Ed25519 with a key pair the service makes; receivers verify with `publicKey` or the keys published at `jwksUrl` (docs/webhooks.md)",
);

const ordered = described(
  z.boolean(),
  'true: notifications with the same `orderingKey` reach this webhook one at a time, in the order the intake accepted them; a failing key holds only itself (docs/webhooks.md, ordered delivery). Notifications without a key are not ordered. Default false.',
);

const WebhookFields = {
  url: described(
    z.url({ protocol: /^https?$/, error: (issue) => urlMessage(issue.input) }).check(z.maxLength(2048)),
    'http(s) URL the notifications are POSTed to; a webhook has either `url` or `destination`',
  ),
  destination: described(
    DestinationSchema,
    "instead of `url`: an SQS queue, SNS topic or EventBridge event bus in the caller's AWS account, sent to by assuming their role (ADR 0019; docs/webhooks.md). A webhook with a destination has no `url`",
  ),
  name: z
    .string()
    .check(
      z.trim(),
      z.minLength(1),
      z.maxLength(200),
      z.regex(
        CONTROL_CHARACTERS,
        'must not contain control characters (such as NUL, CR, LF) or bidirectional controls',
      ),
    ),
  global: described(z.boolean(), 'true: receives every subscribed notification (admins only)'),
  notificationType: z
    .array(notificationName(SUBSCRIBABLE_NAMES))
    .check(z.minLength(1), z.maxLength(SUBSCRIBABLE_NAMES.length)),
  actionType: ActionTypeSchema,
  secret: described(
    z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
    'write-only HMAC signing secret (`v1` only; refused with `signatureScheme: "v1a"`): `whsec_<base64 of a 16–64 byte key>` (what the svix and standardwebhooks verifiers take as it is; POST /webhooks/{id}/secret/rotate generates one), or any string of at least 16 characters, whose UTF-8 bytes are the key (those verifiers need it as bytes with `{format: "raw"}`)',
  ),
};

/** Both a URL and a destination: refused, naming `destination` (a webhook has one target). */
const BOTH_TARGETS = 'send either url or destination, not both';

export const WebhookInputSchema = z
  .strictObject({
    ...WebhookFields,
    url: z.optional(WebhookFields.url),
    destination: z.optional(WebhookFields.destination),
    signatureScheme: z.optional(signatureScheme),
    maxDeliveriesPerSecond: z.optional(maxDeliveriesPerSecond),
    filter: z.optional(filter),
    ordered: z.optional(ordered),
  })
  .check(
    z.refine((input) => input.url === undefined || input.destination === undefined, {
      message: BOTH_TARGETS,
      path: ['destination'],
    }),
    z.refine((input) => input.url !== undefined || input.destination !== undefined, {
      message: 'required (or a destination instead)',
      path: ['url'],
    }),
  );
export type WebhookInput = z.output<typeof WebhookInputSchema>;

/**
 * `PATCH /webhooks/{id}`: a JSON merge patch of the webhook's settings. Only the fields sent
 * change; `maxDeliveriesPerSecond: null` removes the limit, `filter: null` the filter. A webhook
 * has one target: sending `destination` replaces its URL and sending `url` its destination (no
 * `null` needed); both at once is refused. The secret changes through
 * `POST /webhooks/{id}/secret/rotate`, never here; `signatureScheme` switches between HMAC and
 * Ed25519 with an overlap window (ADR 0018).
 */
export const WebhookPatchSchema = withUnknownFieldHints(
  z
    .strictObject({
      url: z.optional(WebhookFields.url),
      destination: z.optional(WebhookFields.destination),
      name: z.optional(WebhookFields.name),
      global: z.optional(WebhookFields.global),
      notificationType: z.optional(WebhookFields.notificationType),
      actionType: z.optional(WebhookFields.actionType),
      maxDeliveriesPerSecond: z.optional(z.nullable(maxDeliveriesPerSecond)),
      filter: z.optional(z.nullable(filter)),
      signatureScheme: z.optional(signatureScheme),
      ordered: z.optional(ordered),
    })
    .check(
      z.refine((patch) => Object.keys(patch).length > 0, {
        message:
          'send at least one of url, destination, name, global, notificationType, actionType, maxDeliveriesPerSecond, filter, signatureScheme, ordered',
      }),
      z.refine((patch) => patch.url === undefined || patch.destination === undefined, {
        message: `${BOTH_TARGETS} (either one replaces the other)`,
        path: ['destination'],
      }),
    ),
  { secret: 'a secret is changed with POST /webhooks/{id}/secret/rotate, not with PATCH' },
);
export type WebhookPatch = z.output<typeof WebhookPatchSchema>;

/** Why a webhook is not enabled: who or what disabled it. */
const DISABLE_CAUSES = ['owner', 'admin', 'keysRevoked', 'gone', 'failing'] as const;
export type DisableCause = (typeof DISABLE_CAUSES)[number];

const WebhookStatusSchema = described(
  z.enum(['enabled', 'disabled', 'autoDisabled']),
  '`enabled` receives deliveries; `disabled` was paused by its owner or an admin (or when its owner’s keys were revoked); `autoDisabled` was stopped by the service (a 410 answer, or failing continuously)',
);
export type WebhookStatus = z.infer<typeof WebhookStatusSchema>;

export const CreateWebhooksBodySchema = z.strictObject({
  webhooks: z.array(z.unknown()).check(z.minLength(1), z.maxLength(MAX_WEBHOOKS_PER_REQUEST)),
});

/**
 * A webhook as stored (secrets are SecretBox ciphertexts). Items written before webhooks had a
 * status have none (`enabled`) and no `version` (0).
 */
export interface WebhookItem {
  id: number;
  name: string;
  /** Where deliveries are POSTed; absent when the webhook has a `destination` (it has one of them). */
  url?: string;
  /** An AWS destination instead of a URL (./destination.ts, ADR 0019). */
  destination?: Destination;
  /**
   * With a destination: the owner's ExternalId its role was checked with, copied here when it
   * was (create, or a PATCH of the destination), so the senders need not read the ExternalIds.
   */
  externalId?: string;
  global: boolean;
  notificationType: string[];
  actionType: 'triggered' | 'receive' | null;
  /** `v1a` signs with `signingKey` (Ed25519); absent is `v1` (HMAC with `secret`, if any). */
  signatureScheme?: 'v1a';
  /** The HMAC secret (`v1`). */
  secret?: string;
  /** The Ed25519 secret key `whsk_…` (`v1a`), sealed as the webhook's `signingKey`. */
  signingKey?: string;
  /** `signingKey`'s public key, `whpk_…`. */
  publicKey?: string;
  /** The id of the webhook's published key set (made with its first key pair, kept for its life). */
  keySetId?: string;
  /**
   * The credential before the last rotation or scheme switch — an HMAC secret or a key pair,
   * never both — still signing until `previousSecretExpiresAt`.
   */
  previousSecret?: string;
  previousSigningKey?: string;
  previousPublicKey?: string;
  previousSecretExpiresAt?: string;
  maxDeliveriesPerSecond?: number;
  /** The payload filter (CEL), checked when it was stored (../filter.ts). */
  filter?: string;
  /** Ordered delivery per key (ADR 0020); stored only when true, absent is false. */
  ordered?: boolean;
  status?: WebhookStatus;
  disabledAt?: string;
  disabledReason?: string;
  disabledCause?: DisableCause;
  /**
   * Since when every attempt failed (set by the first failure after a success, removed by the
   * next success: written only when the outcome class changes), and when the owner was warned.
   */
  failingSince?: string;
  failWarnedAt?: string;
  /** Bumped by every change; each write is conditional on the version it read. */
  version?: number;
  createdBy: number;
  createdAt: string;
  updatedAt: string;
}

const WebhookLatencySchema = withMeta(
  z.object({
    p50Ms: described(z.int(), 'median duration of an attempt (ms), nearest rank'),
    p95Ms: described(z.int(), '95th percentile (ms), nearest rank'),
    samples: described(z.int(), 'attempts the percentiles are taken over (at most 200)'),
  }),
  {
    id: 'WebhookLatency',
    description:
      "Receiver latency from the webhook's own history: each attempt's duration (sending the request until the answer, or the failure), skipped attempts left out.",
  },
);
export type WebhookLatency = z.infer<typeof WebhookLatencySchema>;

const WebhookHealthSchema = withMeta(
  z.object({
    lastAttemptAt: described(z.optional(z.string()), 'the newest attempt in the history'),
    lastSuccessAt: described(z.optional(z.string()), 'the newest 2xx answer in the history'),
    consecutiveFailures: described(
      z.number().check(z.int()),
      'failed attempts after the newest 2xx answer (counted up to 1,000)',
    ),
    successRate24h: described(
      z.nullable(z.number()),
      'share of 2xx answers among the attempts of the current hour and the 23 before it; null without any',
    ),
    attempts24h: described(z.int(), 'attempts the rate is taken over'),
    latency24h: described(
      z.optional(z.nullable(WebhookLatencySchema)),
      'only on `GET /webhooks/{id}`: how long the receiver took to answer, over the newest attempts (up to 200) of the same 24 hours that made a request; null without any',
    ),
    filterErrors: described(
      z.number().check(z.int()),
      'notifications whose filter evaluation failed (a run-time error, or past the cost bound) in the current hour and the 23 before it; each counted as no match',
    ),
    parkedKeys: described(
      z.optional(z.int()),
      'ordered webhooks only: how many ordering keys are parked (`GET /webhooks/{id}/ordering-keys?state=parked` lists them)',
    ),
  }),
  {
    id: 'WebhookHealth',
    description:
      "The webhook's recent delivery health, from counters the history stream keeps (a few seconds behind the history).",
  },
);
export type WebhookHealth = z.infer<typeof WebhookHealthSchema>;

export const WebhookViewSchema = withMeta(
  z.object({
    id: z.int(),
    name: z.string(),
    url: described(
      z.optional(z.string()),
      'where notifications are POSTed; absent when the webhook has a `destination` (an extension of the specification, which always shows `url`)',
    ),
    destination: described(
      z.optional(DestinationSchema),
      'the AWS destination deliveries go to, instead of a URL (ADR 0019)',
    ),
    global: z.boolean(),
    notificationType: z.array(z.string()),
    actionType: z.nullable(ActionTypeSchema),
    signatureScheme: described(z.enum(SIGNATURE_SCHEMES), 'how deliveries are signed (ADR 0018)'),
    publicKey: described(
      z.optional(z.string()),
      '`v1a` only: the Ed25519 public key that verifies the `v1a` signatures, `whpk_<base64 of 32 bytes>`',
    ),
    jwksUrl: described(
      z.optional(z.string()),
      "the public JWK set of the webhook's keys (no API key needed; present once the webhook has had a key pair, also after a switch back to `v1`)",
    ),
    createdBy: z.int(),
    createdAt: z.string(),
    updatedAt: z.string(),
    status: WebhookStatusSchema,
    disabledAt: described(z.optional(z.string()), 'when it was disabled (absent while enabled)'),
    disabledReason: described(z.optional(z.string()), 'why it was disabled (absent while enabled)'),
    maxDeliveriesPerSecond: described(z.optional(z.number()), 'the delivery rate limit, when one is set'),
    filter: described(z.optional(filter), 'the payload filter, when one is set (docs/webhooks.md)'),
    ordered,
    previousSecretExpiresAt: described(
      z.optional(z.string()),
      'during a rotation’s or scheme switch’s overlap window: until when the previous secret or key still signs',
    ),
    failingSince: described(
      z.optional(z.string()),
      'since when every attempt has failed (absent while the latest attempt succeeded)',
    ),
    health: z.optional(WebhookHealthSchema),
  }),
  { id: 'Webhook', description: 'A webhook; the secret is write-only and never returned.' },
);
export type WebhookView = z.infer<typeof WebhookViewSchema>;

/** The path of a key set's JWK set document (the route `GET /webhook-keys/{keySetId}`). */
const keySetPath = (keySetId: string): string => `/webhook-keys/${keySetId}`;

/** The webhook as the API shows it; `serviceUrl` is the base its `jwksUrl` is written on. */
export function webhookView(item: WebhookItem, serviceUrl: string): WebhookView {
  const status = statusOf(item);
  const overlap =
    item.previousSecretExpiresAt !== undefined && Date.parse(item.previousSecretExpiresAt) > Date.now()
      ? item.previousSecretExpiresAt
      : undefined;
  return {
    id: item.id,
    name: item.name,
    ...(item.destination !== undefined ? { destination: item.destination } : { url: item.url ?? '' }),
    global: item.global,
    notificationType: item.notificationType,
    actionType: item.actionType ?? null,
    signatureScheme: item.signatureScheme ?? 'v1',
    ...(item.signatureScheme === 'v1a' && item.publicKey !== undefined ? { publicKey: item.publicKey } : {}),
    ...(item.keySetId !== undefined ? { jwksUrl: `${serviceUrl}${keySetPath(item.keySetId)}` } : {}),
    createdBy: item.createdBy,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    status,
    ...(status !== 'enabled' && item.disabledAt !== undefined ? { disabledAt: item.disabledAt } : {}),
    ...(status !== 'enabled' && item.disabledReason !== undefined
      ? { disabledReason: item.disabledReason }
      : {}),
    ...(item.maxDeliveriesPerSecond !== undefined
      ? { maxDeliveriesPerSecond: item.maxDeliveriesPerSecond }
      : {}),
    ...(item.filter !== undefined ? { filter: item.filter } : {}),
    ordered: item.ordered === true,
    ...(overlap !== undefined ? { previousSecretExpiresAt: overlap } : {}),
    ...(item.failingSince !== undefined ? { failingSince: item.failingSince } : {}),
  };
}

const WebhookErrorSchema = z.object({
  index: described(z.int(), 'position of the rejected webhook in the request'),
  name: z.optional(z.string()),
  url: z.optional(z.string()),
  message: described(z.string(), 'why it was rejected'),
  trustPolicy: described(
    z.optional(TrustPolicySchema),
    "when the destination's role refused to be assumed: the trust policy it must have",
  ),
});
export type WebhookError = z.infer<typeof WebhookErrorSchema>;

export const CreateWebhooksResponseSchema = z.object({
  createdWebhooks: z.array(WebhookViewSchema),
  errors: z.array(WebhookErrorSchema),
});

/**
 * `GET /webhooks` paging. Without either parameter the answer is the spec's plain array of
 * every visible webhook; with one, it is a page `{webhooks, nextToken?}`.
 */
export const WebhookListQuerySchema = z.strictObject({
  pageSize: described(
    z.optional(queryInt(1, MAX_WEBHOOK_PAGE_SIZE)),
    `webhooks per page (default ${MAX_WEBHOOK_PAGE_SIZE}); sending it selects the paged answer`,
  ),
  nextToken: z.optional(nextTokenParam),
});
export type WebhookListQuery = z.output<typeof WebhookListQuerySchema>;

export const WebhookPageSchema = withMeta(
  z.object({
    webhooks: z.array(WebhookViewSchema),
    nextToken: described(z.optional(z.string()), 'absent on the last page'),
  }),
  { id: 'WebhookPage', description: 'One page of webhooks (sent when pageSize or nextToken is).' },
);
export type WebhookPage = z.infer<typeof WebhookPageSchema>;

export const IdParamSchema = z.object({ id: idParam() });
