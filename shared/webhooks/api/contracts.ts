/**
 * The webhooks routes' request and response contracts (the handlers validate with the same
 * schemas). Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { ErrorBodySchema } from '../../edge/error-body';
import { idParam, queryBoolean } from '../../edge/validation';
import { NOTIFICATION_NAMES } from '../../notifications/catalog';
import { described, withMeta } from '../../schema-meta';
import { TrustPolicySchema } from '../aws-trust';
import { HistoryRecordSchema, instant } from '../history-model';
import {
  CONTROL_CHARACTERS,
  CreateWebhooksBodySchema,
  CreateWebhooksResponseSchema,
  IdParamSchema,
  MAX_WEBHOOKS_PER_REQUEST,
  WebhookInputSchema,
  WebhookListQuerySchema,
  WebhookPageSchema,
  WebhookPatchSchema,
  WebhookViewSchema,
} from '../model';

const notFound = { description: 'No such webhook visible to the caller.', schema: ErrorBodySchema };

/**
 * What a PATCH body may not hold, though a caller may well send it: the secret (rotated by its own
 * route) and every read-only field of the webhook as GET shows it (a GET → change → PATCH round
 * trip). The edge refuses them as unknown fields; the document names each as never valid, so a
 * typed client refuses them at compile time even where it cannot check for unknown keys
 * (openapi-fetch's inline bodies; README, A typed client).
 */
const PATCH_REFUSED = [
  'secret',
  ...Object.keys(WebhookViewSchema.shape).filter((field) => !(field in WebhookPatchSchema.shape)),
];

/** The PATCH body as documented (the edge validates `WebhookPatchSchema`). */
const WebhookPatchDocumented = withMeta(
  z.strictObject({
    ...WebhookPatchSchema.shape,
    ...Object.fromEntries(PATCH_REFUSED.map((field) => [field, z.optional(z.never())])),
  }),
  {
    id: 'WebhookPatch',
    description: `The fields to change (JSON merge patch), at least one. Never accepted here: ${PATCH_REFUSED.map((f) => `\`${f}\``).join(', ')} (the secret changes through POST /webhooks/{id}/secret/rotate; the others are read-only).`,
  },
);
const tooMany = {
  description:
    "The caller's manual sends (retries and test sends) in the current window reached the stage's limit (or the sender is at its concurrency limit); the Retry-After header gives the seconds to wait.",
  schema: ErrorBodySchema,
};

const DisableBodySchema = withMeta(
  z.strictObject({
    reason: described(
      z.optional(
        z
          .string()
          .check(
            z.trim(),
            z.minLength(1),
            z.maxLength(500),
            z.regex(CONTROL_CHARACTERS, 'must not contain control characters or bidirectional controls'),
          ),
      ),
      'why (shown in `disabledReason`)',
    ),
  }),
  { id: 'WebhookDisable' },
);

const RotateBodySchema = withMeta(
  z.strictObject({
    secret: described(
      WebhookInputSchema.shape.secret,
      'the new HMAC secret (`v1` webhooks only); absent: one is generated and answered once (or, for a `v1a` webhook, a new key pair is made)',
    ),
  }),
  { id: 'WebhookSecretRotation' },
);

const RotatedSchema = withMeta(
  z.object({
    webhook: WebhookViewSchema,
    secret: described(
      z.optional(z.string()),
      'the generated HMAC secret (only when none was sent, `v1`): shown this once',
    ),
    publicKey: described(
      z.optional(z.string()),
      '`v1a`: the new public key (`whpk_…`), also in `webhook.publicKey`',
    ),
  }),
  { id: 'WebhookSecretRotated' },
);

/** The PATCH answer: the webhook, and the HMAC secret a switch back to `v1` generated. */
const PatchedSchema = withMeta(
  z.extend(WebhookViewSchema, {
    secret: described(
      z.optional(z.string()),
      'only when this PATCH switched `signatureScheme` from `v1a` to `v1`: the generated HMAC secret, shown this once',
    ),
  }),
  { id: 'WebhookPatched' },
);

const JwkSchema = withMeta(
  z.object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: described(z.string(), 'the 32-byte public key, base64url without padding (RFC 8037)'),
    kid: described(z.string(), "the key's RFC 7638 thumbprint"),
    use: z.literal('sig'),
    alg: z.literal('EdDSA'),
  }),
  {
    id: 'WebhookJwk',
    description: 'A public key that verifies `v1a` webhook signatures (never a private part).',
  },
);

const JwkSetSchema = withMeta(
  z.object({
    keys: described(
      z.array(JwkSchema),
      'the current key and any key still in its overlap window, newest first; empty for a webhook switched back to `v1` once the window has passed',
    ),
  }),
  {
    id: 'WebhookJwkSet',
    description:
      'RFC 7517 JWK set. Cache it for the Cache-Control max-age (never longer than the overlap window, so a rotation is never missed) and fetch it again, at most once a minute, when no cached key verifies a v1a signature (docs/webhooks.md).',
  },
);

const RecoverBodySchema = withMeta(
  z.strictObject({
    since: instant('re-send deliveries with a record at or after this time (within the history retention)'),
    until: z.optional(instant('… and at or before this time (default: now)')),
    onlyFailed: described(
      z._default(z.boolean(), true),
      'true: only deliveries whose latest attempt failed (a delivery that later succeeded is not re-sent)',
    ),
  }),
  { id: 'WebhookRecover' },
);

const RecoverQuerySchema = z.strictObject({
  dryRun: described(z._default(queryBoolean(), false), 'true: answer the count and send nothing'),
});

const RecoverJobSchema = withMeta(
  z.object({
    jobId: z.string(),
    webhookId: z.int(),
    status: z.enum(['running', 'completed']),
    since: z.string(),
    until: z.string(),
    onlyFailed: z.boolean(),
    scanned: described(z.int(), 'history index entries read in the window'),
    deliveries: described(z.int(), 'deliveries with a record in the window (each once)'),
    alreadyDelivered: described(z.int(), 'of those, whose latest attempt succeeded'),
    enqueued: described(z.int(), 're-sends queued'),
    resent: described(z.int(), 're-sends made and recorded so far'),
    startedAt: z.string(),
    updatedAt: z.string(),
    finishedAt: described(z.optional(z.string()), 'when the job had queued every re-send'),
    allowance: described(
      z.optional(z.number().check(z.int())),
      're-sends this job makes at most: what the window held to re-send when it started, bounded by the stage’s cap per job and the caller’s hourly budget (which it was charged to)',
    ),
    capped: described(
      z.optional(z.boolean()),
      'true: the window held more deliveries to re-send than the allowance; recover again later for the rest (with onlyFailed, what this job re-sent successfully is not sent again)',
    ),
  }),
  { id: 'WebhookRecoverJob', description: 'A recover job and its progress.' },
);
export type RecoverJobView = z.infer<typeof RecoverJobSchema>;

const RecoverDryRunSchema = withMeta(
  z.object({
    dryRun: z.literal(true),
    deliveries: described(z.int(), 'deliveries a recover with these settings would re-send now'),
    since: z.string(),
    until: z.string(),
    onlyFailed: z.boolean(),
  }),
  { id: 'WebhookRecoverDryRun' },
);

const TestBodySchema = withMeta(
  z.strictObject({
    notificationType: described(
      z.optional(z.enum(NOTIFICATION_NAMES)),
      'a type the webhook subscribes to (default: the first it names)',
    ),
  }),
  { id: 'WebhookTest' },
);

export const webhookContracts = {
  'POST /webhooks': {
    body: CreateWebhooksBodySchema,
    documentedBody: z.extend(CreateWebhooksBodySchema, {
      webhooks: z.array(WebhookInputSchema).check(z.minLength(1), z.maxLength(MAX_WEBHOOKS_PER_REQUEST)),
    }),
    responses: {
      201: {
        description:
          'At least one webhook was created; `errors` names every rejected entry (by index) and why.',
        schema: CreateWebhooksResponseSchema,
      },
      422: {
        description:
          'No webhook was created; `errors` says why for each entry (with `trustPolicy` for a destination whose role refused to be assumed).',
        schema: z.extend(ErrorBodySchema, CreateWebhooksResponseSchema.shape),
      },
    },
  },
  'GET /webhooks': {
    query: WebhookListQuerySchema,
    responses: {
      200: {
        description:
          'Admins: every webhook; others: their own. Without paging parameters, all of them as an array ' +
          '(the original answer); with `pageSize` or `nextToken`, one page `{webhooks, nextToken}` ' +
          '(owners’ pages in id order, admins’ in storage order).',
        schema: z.union([z.array(WebhookViewSchema), WebhookPageSchema]),
      },
    },
  },
  'GET /webhooks/{id}': {
    params: IdParamSchema,
    responses: { 200: { description: 'The webhook.', schema: WebhookViewSchema }, 404: notFound },
  },
  'DELETE /webhooks/{id}': {
    params: IdParamSchema,
    responses: { 200: { description: 'The deleted webhook.', schema: WebhookViewSchema }, 404: notFound },
  },
  'PATCH /webhooks/{id}': {
    params: IdParamSchema,
    body: WebhookPatchSchema,
    documentedBody: WebhookPatchDocumented,
    responses: {
      200: {
        description:
          'The changed webhook (`updatedAt` moved), with the generated `secret` when the PATCH switched `signatureScheme` back to `v1`.',
        schema: PatchedSchema,
      },
      404: notFound,
      409: {
        description:
          "The new URL (or queue) is one another webhook of the owner already uses, the signatureScheme change comes while the previous scheme's overlap window is still running, or `ordered: false` comes while ordering keys are parked, held or draining.",
        schema: ErrorBodySchema,
      },
      422: {
        description:
          "The new `destination`'s role could not be assumed with the owner's ExternalId (or the owner has none yet: GET /webhooks/aws-trust makes it). Nothing was changed; `trustPolicy` is the trust policy the role needs.",
        schema: z.extend(ErrorBodySchema, {
          trustPolicy: described(z.optional(TrustPolicySchema), 'the trust policy to attach to the role'),
        }),
      },
    },
  },
  'POST /webhooks/{id}/disable': {
    params: IdParamSchema,
    body: DisableBodySchema,
    bodyRequired: false,
    responses: {
      200: {
        description: 'The webhook, `disabled` (unchanged if it was not enabled).',
        schema: WebhookViewSchema,
      },
      404: notFound,
    },
  },
  'POST /webhooks/{id}/enable': {
    params: IdParamSchema,
    responses: {
      200: { description: 'The webhook, `enabled`.', schema: WebhookViewSchema },
      403: {
        description: "It was disabled when its owner's API keys were revoked: only an admin may enable it.",
        schema: ErrorBodySchema,
      },
      404: notFound,
    },
  },
  'POST /webhooks/{id}/secret/rotate': {
    params: IdParamSchema,
    body: RotateBodySchema,
    bodyRequired: false,
    responses: {
      200: {
        description:
          'The webhook (with `previousSecretExpiresAt` while the previous secret or key still signs) and the generated secret, if one was generated, or the new public key of a `v1a` webhook.',
        schema: RotatedSchema,
      },
      404: notFound,
      409: {
        description:
          "The webhook's signatureScheme was switched and the previous scheme's overlap window is still running.",
        schema: ErrorBodySchema,
      },
    },
  },
  'POST /webhooks/{id}/test': {
    params: IdParamSchema,
    body: TestBodySchema,
    bodyRequired: false,
    responses: {
      201: {
        description: 'The history record of the test send (`test: true`).',
        schema: z.extend(HistoryRecordSchema, { test: z.literal(true) }),
      },
      404: notFound,
      429: tooMany,
    },
  },
  'POST /webhooks/{id}/recover': {
    params: IdParamSchema,
    query: RecoverQuerySchema,
    body: RecoverBodySchema,
    responses: {
      200: {
        description: '`dryRun=true`: what a recover would re-send; nothing is sent.',
        schema: RecoverDryRunSchema,
      },
      202: { description: 'The job was started; poll its status route.', schema: RecoverJobSchema },
      404: notFound,
      409: {
        description: 'A recover job of this webhook is running, or the webhook is not enabled.',
        schema: ErrorBodySchema,
      },
      429: {
        description:
          "The caller's re-send budget (deliveries per rolling hour) cannot take this job now, or the webhook's last job ended less than the stage's cool-down ago. The message says when it may run; Retry-After gives the seconds until then.",
        schema: ErrorBodySchema,
      },
    },
  },
  'GET /webhooks/{id}/recover/{jobId}': {
    params: z.object({
      id: idParam(),
      jobId: z.string().check(z.regex(/^rj_[0-9a-f]{32}$/, 'not a recover job id')),
    }),
    responses: {
      200: {
        description: 'The job: progress while running, final counts once completed.',
        schema: RecoverJobSchema,
      },
      404: { description: 'No such job of a webhook visible to the caller.', schema: ErrorBodySchema },
    },
  },
  'GET /webhook-keys/{keySetId}': {
    // Any id: one that names no key set (whatever its shape) is a 404, never a 400.
    params: z.object({ keySetId: z.string() }),
    responses: {
      200: { description: 'The key set (JWK set), with Cache-Control.', schema: JwkSetSchema },
      404: { description: 'No key set has this id.', schema: ErrorBodySchema },
    },
  },
  'POST /webhooks/history/retry/{id}': {
    params: IdParamSchema,
    responses: {
      201: {
        description: 'The new history record of the re-sent request.',
        schema: z.extend(HistoryRecordSchema, { retryOf: z.int() }),
      },
      404: {
        description: 'No such history record visible to the caller, or its webhook is gone.',
        schema: ErrorBodySchema,
      },
      429: tooMany,
    },
  },
} satisfies Record<string, RouteContract>;
