/**
 * A webhook's target — where its deliveries go — as the code outside the transport names it.
 * Today every webhook has a `url`. Issue 40 (ADR 0019) adds webhooks with a `destination` in the
 * customer's AWS account instead; their case is added here, and the owner's counters, the
 * history records and the service's notifications follow:
 * - `targetKey`: the identity the per-URL limit counts (`sqs:<queueArn>`, `sns:<topicArn>`,
 *   `events:<busArn>`, whatever role sends to it);
 * - `targetLabel`: what records and messages show (a queue's URL, a topic's or a bus's ARN).
 *
 * What is sent where stays the transport's (pipeline/attempt.ts picks it by the webhook), and the
 * webhook's view shows the fields it was given (model.ts).
 */
import { canonicalUrl } from './canonical-url';
import { destinationResource } from './destination';
import type { WebhookItem } from './model';

/** What a webhook's target is read from: its URL or its destination (it has one of them). */
type Targeted = Pick<WebhookItem, 'url' | 'destination'>;

/**
 * The identity the owner's same-URL counters and the per-URL limit count: two webhooks with equal
 * keys share a target. For a URL its canonical form (./canonical-url.ts), which the counter's
 * name hashes, so the key of a URL never changes.
 */
export function targetKey(webhook: Targeted): string {
  if (webhook.destination !== undefined) return destinationResource(webhook.destination).key;
  return canonicalUrl(webhook.url ?? '');
}

/**
 * The target as records and messages show it: the history record's `url`, the `url` of the
 * `webhookFailing` and `webhookAutoDisabled` notifications. For a URL, the URL as the caller sent it.
 */
export function targetLabel(webhook: Targeted): string {
  if (webhook.destination !== undefined) return destinationResource(webhook.destination).label;
  return webhook.url ?? '';
}

/** The field that names a webhook's target in a request (`url`, `destination.topicArn`, …), and what it is. */
export function targetField(webhook: Targeted): { field: string; what: string } {
  if (webhook.destination === undefined) return { field: 'url', what: 'URL' };
  const resource = destinationResource(webhook.destination);
  return { field: `destination.${resource.field}`, what: resource.kind };
}
