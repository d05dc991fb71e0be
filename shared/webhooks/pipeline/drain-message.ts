/**
 * Sends the drain message of an ordered webhook's key (ADR 0020) into the key's own group of the
 * ordered deliveries queue, where its consumer sends the key's waiting deliveries in order
 * (./parking.ts). The routes that resume or skip a key, and enabling a webhook with held keys,
 * send it, and deleting an ordered webhook sends it to each key it left stopped, whose items the
 * consumer then removes; apart from ./parking.ts so that they load no delivery code.
 */
import { randomUUID } from 'node:crypto';
import { sendInOrder } from '../../store/queues';
import { allKeys } from '../store/ordered-keys';
import { type DrainMessage, orderedDeliveryGroup } from './message';

export async function sendDrain(webhookId: number, orderingKey: string): Promise<void> {
  const message: DrainMessage = { v: 1, drain: { webhookId, orderingKey } };
  await sendInOrder('deliveriesOrdered', [
    {
      body: JSON.stringify(message),
      groupId: orderedDeliveryGroup(webhookId, orderingKey),
      // Each resume is a drain of its own: a second one finds the key flowing, or drains after the first.
      deduplicationId: randomUUID(),
    },
  ]);
}

/**
 * After an ordered webhook was deleted: a drain message to each of its keys that is parked, held
 * or draining, in the key's group, where the consumer finds the webhook gone and removes the
 * key's state and waiting deliveries (./parking.ts). Returns how many keys were sent one.
 */
export async function sendPurges(webhookId: number): Promise<number> {
  let sent = 0;
  for await (const { orderingKey } of allKeys(webhookId)) {
    await sendDrain(webhookId, orderingKey);
    sent += 1;
  }
  return sent;
}
