/**
 * The metadata of a notification, shared by the message producers put on the notifications
 * queue (./message.ts) and the message fan-out puts on the deliveries queue. Apart from
 * ./message.ts so that the delivery consumer builds only the schemas it validates with
 * (`docs/benchmarks.md`, figure 5).
 */
import * as z from 'zod';

export const UserId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * The metadata fields of the specification's history record. Payload contents per notification
 * type beyond these fields are not specified, so producers may add further keys; they are
 * delivered as they are. Every field may be absent or `null` (producers serialise "no value" either
 * way; a `null` is delivered as `null`).
 */
export const NotificationMetadataSchema = z
  .looseObject({
    modelId: z.union([z.number().int(), z.string().max(200)]).nullish(),
    actionBy: UserId.nullish().describe('user id of the user who caused the notification'),
    modelType: z.string().max(200).nullish(),
    targetUser: UserId.nullish().describe('user id the notification is about'),
    projectName: z.string().max(500).nullish(),
    targetGroup: z.union([z.number().int(), z.string().max(200)]).nullish(),
    actionByName: z.string().max(500).nullish(),
    targetUserName: z.string().max(500).nullish(),
    notifyInitiator: z
      .boolean()
      .nullish()
      .describe('true: the notification also pertains to the user in actionBy'),
    notificationType: z.string().max(100).nullish(),
  })
  .meta({ description: 'The specification metadata fields; further keys are passed through.' });
