/**
 * An ordered webhook's keys that are not flowing (ADR 0020): list them, resume one, skip its head.
 * Resume and skip change the key's state to `draining` (conditional on its state, and for a skip
 * on its head) and send a drain message into the key's own queue group; the ordered deliveries
 * consumer then sends the key's waiting deliveries in order (../pipeline/parking.ts). The same
 * visibility rules as the webhook's other operations: its owner, or an admin.
 */
import type { Principal } from '../../auth/permissions';
import { ConflictError, NotFoundError } from '../../errors';
import { sendDrain } from '../pipeline/drain-message';
import {
  allKeys,
  type KeyState,
  keyState,
  listKeys,
  type OrderedKeyItem,
  startDrain,
  waitingOf,
} from '../store/ordered-keys';
import type { OrderingKeyView } from './ordering-keys-contract';
import { findVisibleWebhook } from './webhooks';

function orderingKeyView(item: OrderedKeyItem): OrderingKeyView {
  return {
    key: item.orderingKey,
    state: item.state,
    waiting: waitingOf(item),
    headDeliveryId: item.skipHead?.deliveryId ?? item.headDeliveryId,
    parkedAt: item.parkedAt,
    ...(item.lastError !== undefined ? { lastError: item.lastError } : {}),
  };
}

export async function listOrderingKeys(
  caller: Principal,
  webhookId: number,
  query: { state?: KeyState; pageSize: number; nextToken?: string },
): Promise<{ keys: OrderingKeyView[]; nextToken?: string }> {
  await findVisibleWebhook(caller, webhookId);
  const page = await listKeys(webhookId, {
    pageSize: query.pageSize,
    ...(query.state !== undefined ? { state: query.state } : {}),
    ...(query.nextToken !== undefined ? { after: query.nextToken } : {}),
  });
  return {
    keys: page.keys.map(orderingKeyView),
    ...(page.last !== undefined ? { nextToken: Buffer.from(page.last, 'utf8').toString('base64url') } : {}),
  };
}

const notParked = (webhookId: number, key: string) =>
  new NotFoundError(`ordering key ${JSON.stringify(key)} of webhook ${webhookId} is not parked`);

/**
 * Resumes a parked or held key: its head is tried again with its schedule started over, and the
 * rest follows in order. A key already draining gets its drain message again (harmless: the
 * second finds the key drained, or drains after the first), which also restarts a drain whose
 * message was lost between the state change and the send.
 */
export async function resumeOrderingKey(
  caller: Principal,
  webhookId: number,
  key: string,
): Promise<OrderingKeyView> {
  await findVisibleWebhook(caller, webhookId);
  const draining =
    (await startDrain(webhookId, key, ['parked', 'held'])) ?? (await stillDraining(webhookId, key));
  await sendDrain(webhookId, key);
  return orderingKeyView(draining);
}

async function stillDraining(webhookId: number, key: string): Promise<OrderedKeyItem> {
  const state = await keyState(webhookId, key);
  if (state?.state !== 'draining') throw notParked(webhookId, key);
  return state;
}

/**
 * Skips a parked key's head: the drain records it as skipped (`keySkipped`) and takes it off,
 * then sends the rest in order. With `headDeliveryId`, only if that is still the head (409).
 */
export async function skipOrderingKeyHead(
  caller: Principal,
  webhookId: number,
  key: string,
  expectedHead: string | undefined,
): Promise<OrderingKeyView & { skippedDeliveryId: string }> {
  await findVisibleWebhook(caller, webhookId);
  const state = await keyState(webhookId, key);
  if (state?.state !== 'parked') throw notParked(webhookId, key);
  if (expectedHead !== undefined && expectedHead !== state.headDeliveryId)
    throw new ConflictError(
      `body.headDeliveryId: ${expectedHead} is not the head of ordering key ${JSON.stringify(key)} (its head is ${state.headDeliveryId})`,
    );
  const head = state.headDeliveryId;
  const draining = await startDrain(webhookId, key, ['parked'], { deliveryId: head });
  if (!draining) {
    // Resumed, skipped or re-parked with another head between the read and the change.
    const now = await keyState(webhookId, key);
    if (now?.state !== 'parked') throw notParked(webhookId, key);
    throw new ConflictError(
      `ordering key ${JSON.stringify(key)} changed its head while it was skipped (its head is now ${now.headDeliveryId}); list it again`,
    );
  }
  await sendDrain(webhookId, key);
  return { ...orderingKeyView(draining), skippedDeliveryId: head };
}

/**
 * Enabling an ordered webhook drains the keys held while it was disabled, each in its own group
 * (a failure is thrown: the caller enables again, and keys already draining are left alone).
 * Returns how many were resumed.
 */
export async function resumeHeldKeys(webhookId: number): Promise<number> {
  let resumed = 0;
  for await (const held of allKeys(webhookId, 'held')) {
    if (!(await startDrain(webhookId, held.orderingKey, ['held']))) continue;
    await sendDrain(webhookId, held.orderingKey);
    resumed += 1;
  }
  return resumed;
}
