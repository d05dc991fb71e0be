/**
 * Changing a stored webhook, for every writer (the API routes, the delivery pipeline, key
 * revocation): read it consistently, compute the new state, write it with its subscription
 * items in one transaction conditional on the version read, and on a lost race read again and
 * compute again. Concurrent PATCH, disable, enable, rotate and delete therefore apply in one of
 * their serial orders, and a webhook is never left without its subscription items (or items
 * without their webhook).
 *
 * Status: `enabled`, `disabled` (by its owner, an admin, or because its owner's last API key was
 * revoked) or `autoDisabled` (by the service: a 410 answer, or failing continuously). Only an
 * enabled webhook has subscription items, so fan-out skips the others at index-query time. A
 * webhook the service disables is announced through the normal pipeline
 * (`pipeline/auto-disable.ts`).
 */
import { ConflictError } from '../errors';
import { webhookLimits } from './config';
import type { DisableCause, WebhookItem } from './model';
import { statusOf } from './status';
import { getWebhookItem, listWebhooksByOwner, replaceWebhook } from './store/webhooks';
import { targetField } from './target';

/** The new state of a webhook, or undefined when nothing is to change. May throw a domain error. */
export type WebhookChange = (current: WebhookItem) => WebhookItem | undefined;

export interface ChangeResult {
  before: WebhookItem;
  after: WebhookItem;
  /** False when `change` answered that nothing was to change. */
  changed: boolean;
}

/** Lost races before a change gives up (each round is a fresh read of a contended webhook). */
const MAX_ROUNDS = 25;

/**
 * Applies `change` to the webhook, retrying on concurrent changes; undefined when the webhook
 * does not exist (or was deleted meanwhile).
 */
export async function changeWebhook(id: number, change: WebhookChange): Promise<ChangeResult | undefined> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const current = await getWebhookItem(id, true);
    if (!current) return undefined;
    const next = change(current);
    if (!next) return { before: current, after: current, changed: false };
    const after: WebhookItem = {
      ...next,
      id: current.id,
      createdBy: current.createdBy,
      createdAt: current.createdAt,
      version: (current.version ?? 0) + 1,
      updatedAt: new Date().toISOString(),
    };
    const outcome = await replaceWebhook(current, after, webhookLimits().perUrl);
    if (outcome === 'replaced') return { before: current, after, changed: true };
    if (outcome === 'sameUrl') {
      const limit = webhookLimits().perUrl;
      const { field, what } = targetField(after);
      throw new ConflictError(
        `body.${field}: at most ${limit} webhook${limit === 1 ? '' : 's'} of one user may use the same ${what}, and another one uses it`,
      );
    }
    await new Promise((r) => setTimeout(r, Math.random() * 20 * (round + 1)));
  }
  throw new ConflictError(`webhook ${id} is being changed concurrently; try again`);
}

const AUTOMATIC: ReadonlySet<DisableCause> = new Set(['gone', 'failing']);

/** The webhook without its disabled state (and with a fresh failure streak). */
function withoutDisabledState(item: WebhookItem): WebhookItem {
  const {
    disabledAt: _at,
    disabledReason: _reason,
    disabledCause: _cause,
    failingSince: _since,
    failWarnedAt: _warned,
    ...rest
  } = item;
  return { ...rest, status: 'enabled' };
}

/**
 * The change that disables a webhook for `cause`. An already disabled webhook keeps its state,
 * except that key revocation takes over (its re-activation is an admin's decision).
 */
export function disabling(cause: DisableCause, reason: string, at = new Date()): WebhookChange {
  return (current) => {
    if (statusOf(current) !== 'enabled') {
      if (cause !== 'keysRevoked' || current.disabledCause === 'keysRevoked') return undefined;
      return { ...current, disabledCause: cause, disabledReason: reason };
    }
    return {
      ...current,
      status: AUTOMATIC.has(cause) ? 'autoDisabled' : 'disabled',
      disabledAt: at.toISOString(),
      disabledReason: reason,
      disabledCause: cause,
    };
  };
}

/** The change that enables a webhook (none when it is enabled). */
export const enabling: WebhookChange = (current) =>
  statusOf(current) === 'enabled' ? undefined : withoutDisabledState(current);

/**
 * Disables every webhook of an owner whose last API key was revoked (kept, not deleted, so an
 * admin can look at them and enable them again); answers the ids it disabled now.
 */
export async function disableWebhooksOfRevokedOwner(ownerId: number, at = new Date()): Promise<number[]> {
  const change = disabling(
    'keysRevoked',
    "its owner's API keys were revoked; only an APPLICATION_ADMIN may enable it again",
    at,
  );
  const disabled: number[] = [];
  for (const webhook of await listWebhooksByOwner(ownerId)) {
    const result = await changeWebhook(webhook.id, change);
    if (result?.changed) disabled.push(webhook.id);
  }
  return disabled;
}
