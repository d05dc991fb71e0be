/**
 * The metadata of a notification, shared by the message producers put on the notifications
 * queue (./message.ts) and the message fan-out puts on the deliveries queue. Apart from
 * ./message.ts so that the delivery consumer builds only the schemas it validates with
 * (`docs/benchmarks.md`, figure 5).
 */
import * as z from 'zod/mini';
import { described, withMeta } from '../schema-meta';

export const UserId = z.int().check(z.positive(), z.lte(Number.MAX_SAFE_INTEGER));

/**
 * The metadata fields of the specification's history record. Payload contents per notification
 * type beyond these fields are not specified, so producers may add further keys; they are
 * delivered as they are. Every field may be absent or `null` (producers serialise "no value" either
 * way; a `null` is delivered as `null`).
 */
export const NotificationMetadataSchema = withMeta(
  z.looseObject({
    modelId: z.nullish(z.union([z.int(), z.string().check(z.maxLength(200))])),
    actionBy: described(z.nullish(UserId), 'user id of the user who caused the notification'),
    modelType: z.nullish(z.string().check(z.maxLength(200))),
    targetUser: described(z.nullish(UserId), 'user id the notification is about'),
    projectName: z.nullish(z.string().check(z.maxLength(500))),
    targetGroup: z.nullish(z.union([z.int(), z.string().check(z.maxLength(200))])),
    actionByName: z.nullish(z.string().check(z.maxLength(500))),
    targetUserName: z.nullish(z.string().check(z.maxLength(500))),
    notifyInitiator: described(
      z.nullish(z.boolean()),
      'true: the notification also pertains to the user in actionBy',
    ),
    notificationType: z.nullish(z.string().check(z.maxLength(100))),
  }),
  { description: 'The specification metadata fields; further keys are passed through.' },
);
