/**
 * History ids without a hot item: each writing container leases one of ID_SLOTS slots in the
 * counters table (`history-id-slot:<n>`, a conditional put that succeeds when the slot is free or
 * its lease ran out) and makes ids `millis × 1000 + slot`, at most one per millisecond (a
 * container that writes faster runs its clock a few ms ahead). Two containers never hold one
 * slot at a time, so ids are unique; the lease costs one write per container every few minutes.
 *
 * A lease is used only while more than SAFETY_MS of it remain (clock skew between containers),
 * renewed when less than RENEW_BEFORE_MS remain, and taken anew after a container was frozen
 * past its end.
 */
import { randomUUID } from 'node:crypto';
import { tableName } from '../../store/tables';
import { conditionalPut, conditionalUpdate } from '../../store/write';
import { historyId, ID_SLOTS } from './history-keys';

const LEASE_MS = 15 * 60_000;
const RENEW_BEFORE_MS = 5 * 60_000;
const SAFETY_MS = 60_000;
const ACQUIRE_TRIES = 40;

const token = randomUUID();
let lease: { slot: number; until: number } | undefined;
let pending: Promise<number> | undefined;
let lastMs = 0;

const slotName = (slot: number) => `history-id-slot:${slot}`;

async function acquire(now: number): Promise<{ slot: number; until: number }> {
  const until = now + LEASE_MS;
  for (let tries = 0; tries < ACQUIRE_TRIES; tries++) {
    const slot = Math.floor(Math.random() * ID_SLOTS);
    const taken = await conditionalPut({
      TableName: tableName('counters'),
      Item: { name: slotName(slot), owner: token, until },
      ConditionExpression: 'attribute_not_exists(#name) OR #until < :now',
      ExpressionAttributeNames: { '#name': 'name', '#until': 'until' },
      ExpressionAttributeValues: { ':now': now },
    });
    if (taken) return { slot, until };
  }
  throw new Error(`no free history id slot after ${ACQUIRE_TRIES} tries (${ID_SLOTS} slots)`);
}

async function renew(
  current: { slot: number },
  now: number,
): Promise<{ slot: number; until: number } | undefined> {
  const until = now + LEASE_MS;
  const renewed = await conditionalUpdate({
    TableName: tableName('counters'),
    Key: { name: slotName(current.slot) },
    UpdateExpression: 'SET #until = :until',
    ConditionExpression: '#owner = :me',
    ExpressionAttributeNames: { '#until': 'until', '#owner': 'owner' },
    ExpressionAttributeValues: { ':until': until, ':me': token },
  });
  return renewed ? { slot: current.slot, until } : undefined;
}

async function currentSlot(): Promise<number> {
  const now = Date.now();
  if (lease && now < lease.until - RENEW_BEFORE_MS) return lease.slot;
  pending ??= (async () => {
    try {
      const held = lease && now < lease.until - SAFETY_MS ? await renew(lease, now) : undefined;
      lease = held ?? (await acquire(now));
      return lease.slot;
    } finally {
      pending = undefined;
    }
  })();
  return pending;
}

/** A new history id: unique, time-ordered, a safe integer. */
export async function nextHistoryId(): Promise<number> {
  const slot = await currentSlot();
  const ms = Math.max(Date.now(), lastMs + 1);
  lastMs = ms;
  return historyId(ms, slot);
}
