/**
 * The two counters per owner in the counters table that the webhook transactions keep
 * (./webhooks.ts): how many webhooks the owner has, and how many with each URL; a create's
 * conditions on them enforce the quota and the same-URL limit atomically. Counters are created on
 * first use from the owner's stored webhooks, so state from before the limits (or before URLs
 * were compared in their canonical form) still counts.
 */
import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { putIfAbsent } from '../../store/write';
import type { WebhookItem } from '../model';
import { targetKey } from '../target';

/**
 * The counter of an owner's webhooks, and of their webhooks with the target key (../target.ts:
 * a URL's canonical form) of `webhook` (`curl`: the counters named `url` hashed the parsed URL only).
 */
export const ownerCounter = (owner: number) => `webhooks-of:${owner}`;
export function urlCounter(webhook: WebhookItem): string {
  const key = createHash('sha256').update(targetKey(webhook)).digest('base64url');
  return `webhooks-of:${webhook.createdBy}:curl:${key}`;
}

export function counterUpdate(name: string, delta: number, below?: number) {
  return {
    Update: {
      TableName: tableName('counters'),
      Key: { name },
      UpdateExpression: 'ADD #v :delta',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':delta': delta, ...(below !== undefined ? { ':max': below } : {}) },
      ...(below !== undefined ? { ConditionExpression: 'attribute_not_exists(#v) OR #v < :max' } : {}),
    },
  };
}

/**
 * Counters this container has seen exist. An owner's counters are never deleted (a webhook's
 * deletion counts down), so once seen they need no read again; bounded, and simply forgotten
 * when full.
 */
const knownCounters = new Set<string>();
const KNOWN_COUNTERS_MAX = 10_000;

function noteCounters(...names: string[]): void {
  if (knownCounters.size + names.length > KNOWN_COUNTERS_MAX) knownCounters.clear();
  for (const name of names) knownCounters.add(name);
}

async function counterExists(name: string): Promise<boolean> {
  if (knownCounters.has(name)) return true;
  const out = await documentClient.send(new GetCommand({ TableName: tableName('counters'), Key: { name } }));
  return out.Item !== undefined;
}

/**
 * Creates the owner's total counter and the counter of the webhook's target from their stored
 * webhooks unless they exist already (a racing create may have made them first: then its value
 * stands). Counters seen before in this container are not read again.
 */
export async function ensureOwnerCounters(
  webhook: WebhookItem,
  listByOwner: (owner: number) => Promise<WebhookItem[]>,
): Promise<void> {
  const owner = webhook.createdBy;
  const total = ownerCounter(owner);
  const sameUrl = urlCounter(webhook);
  const exist = await Promise.all([counterExists(total), counterExists(sameUrl)]);
  if (!exist.every(Boolean)) {
    const webhooks = await listByOwner(owner);
    const counters = tableName('counters');
    const withUrl = webhooks.filter((w) => urlCounter(w) === sameUrl).length;
    await putIfAbsent(counters, { name: sameUrl, value: withUrl }, 'name');
    await putIfAbsent(counters, { name: total, value: webhooks.length }, 'name');
  }
  noteCounters(total, sameUrl);
}
