/**
 * `PATCH /webhooks/{id}`: a JSON merge patch of a webhook's settings under the create rules —
 * only admins make a webhook global or subscribe it to system events, and only an admin's webhook
 * may be global or so subscribed (the owner's permissions count as well as the caller's), the URL carries no
 * credentials (and no non-public literal address where the guard is on), one URL per user —
 * each refusal a 400 naming the field, with nothing changed. The webhook and its subscription
 * items change in one transaction (../lifecycle.ts), so fan-out routes by the old settings or by
 * the new ones, never by half of each; queued deliveries go to the URL in force when they are
 * attempted, because the delivery consumer reads the webhook at each attempt. Every PATCH
 * writes (and moves `updatedAt`), even one that sends the values already stored.
 *
 * `signatureScheme` switches between HMAC (`v1`) and Ed25519 (`v1a`) with an overlap window in
 * which both signatures are sent (../credentials.ts, ADR 0018); a switch back to `v1` answers the
 * new HMAC secret once, as rotation does. Sending the scheme the webhook has changes nothing.
 *
 * `filter` is compiled here against the types the webhook will subscribe to (../filter.ts), and
 * `filter: null` removes it. Deliveries already queued keep the decision fan-out made: the
 * filter is evaluated at fan-out only, never when a queued delivery is attempted.
 *
 * A webhook has one target (ADR 0019): `destination` replaces its URL and `url` its destination,
 * no `null` needed; both at once is a 400. A new destination — another queue or role, or a URL
 * webhook's first — has its role assumed with the owner's ExternalId before anything changes
 * (./destination-trust.ts): a refusal is a 422 with the trust policy, and the webhook is left as
 * it was. The ExternalId checked is copied onto the webhook with the destination.
 *
 * `ordered` (ADR 0020) is copied onto the subscription items in the same transaction, so fan-out
 * routes a notification by the setting in force when it reads them; deliveries already queued keep
 * the path fan-out chose for them. Turning it off while a key is parked, held or draining is a 409
 * (one Query, Limit 1): resume or skip the keys first. A key parked between that read and the
 * change stays resumable through its routes, which work whatever the setting.
 */
import { APPLICATION_ADMIN, isAdmin, type Principal } from '../../auth/permissions';
import { getPrincipalItem } from '../../auth/store';
import { ConflictError, InvalidInputError, UnprocessableError } from '../../errors';
import { requiresAdmin, type SubscribableName } from '../../notifications/catalog';
import { secretOverlapSeconds } from '../config';
import { type NewCredential, newHmacSecret, newKeyPair, replaceCredential, schemeOf } from '../credentials';
import { sameDestination } from '../destination';
import { changeWebhook } from '../lifecycle';
import { type WebhookItem, type WebhookPatch, type WebhookView, webhookView } from '../model';
import { generateSecret } from '../pipeline/signing';
import { anyKeyNotFlowing } from '../store/ordered-keys';
import { getWebhookItem, MAX_SUBSCRIPTION_CHANGES, subscriptionChanges } from '../store/webhooks';
import { checkTrust } from './destination-trust';
import {
  assertVisible,
  destinationFieldProblem,
  findVisibleWebhook,
  globalProblem,
  subscriptionProblem,
  urlProblem,
  webhookNotFound,
} from './webhooks';

/** The first rule the patch breaks for this caller, as a 400 naming its field. */
function checkPatch(caller: Principal, patch: WebhookPatch): void {
  const problems: [string, string | undefined][] = [
    ['global', patch.global === undefined ? undefined : globalProblem(caller, patch.global)],
    [
      'notificationType',
      patch.notificationType === undefined ? undefined : subscriptionProblem(caller, patch.notificationType),
    ],
    ['url', patch.url === undefined ? undefined : urlProblem(patch.url)],
  ];
  const found = problems.find(([, problem]) => problem !== undefined);
  if (found) throw new InvalidInputError(`body.${found[0]}: ${found[1]}`);
  const destination =
    patch.destination === undefined ? undefined : destinationFieldProblem(patch.destination);
  if (destination) throw new InvalidInputError(`body.destination${destination[0]}: ${destination[1]}`);
}

/**
 * The ExternalId a new destination's role was checked with (a 422 when it refused, or when the
 * owner has none yet); undefined when the patch keeps the destination the webhook has.
 */
async function checkedExternalId(
  caller: Principal,
  id: number,
  patch: WebhookPatch,
): Promise<string | undefined> {
  if (patch.destination === undefined) return undefined;
  const current = await findVisibleWebhook(caller, id, true);
  if (sameDestination(current.destination, patch.destination) && current.externalId !== undefined)
    return undefined;
  const check = await checkTrust(current.createdBy, patch.destination, id);
  if ('problem' in check)
    throw new UnprocessableError(
      `body.destination.roleArn: ${check.problem}`,
      check.trustPolicy !== undefined ? { trustPolicy: check.trustPolicy } : undefined,
    );
  return check.externalId;
}

/**
 * Whether the webhook's owner is an APPLICATION_ADMIN. A user changes only their own webhooks (the
 * others are 404s), so their own permissions answer; an admin's change of another user's webhook
 * reads the owner's (a user no longer stored has none). The owner of a webhook never changes.
 */
async function ownerIsAdmin(caller: Principal, id: number): Promise<boolean> {
  if (!isAdmin(caller)) return false;
  const owner = (await getWebhookItem(id))?.createdBy;
  if (owner === undefined || owner === caller.userId) return true;
  const permissions = (await getPrincipalItem(owner))?.permissions;
  return Array.isArray(permissions) && permissions.includes(APPLICATION_ADMIN);
}

/**
 * What only an admin's webhook may have — `global`, system events, the wildcard — judged on the
 * webhook as the change leaves it, by its owner's permissions (issue 34, item 17): an admin cannot
 * hand them to another user's webhook, and a user's webhook that has them from before this rule
 * changes only to drop them. A 400 naming the field.
 */
function checkOwnerRights(next: WebhookItem, ownerAdmin: boolean): void {
  if (ownerAdmin) return;
  if (next.global) {
    throw new InvalidInputError(
      "body.global: only an APPLICATION_ADMIN's webhook may be global, and this webhook's owner is not one (a global webhook that is not an admin's changes only to global: false)",
    );
  }
  const adminOnly = next.notificationType.filter((name) => requiresAdmin(name as SubscribableName));
  if (adminOnly.length > 0) {
    throw new InvalidInputError(
      `body.notificationType: only an APPLICATION_ADMIN's webhook may subscribe to system events, and this webhook's owner is not one: ${adminOnly.join(', ')}`,
    );
  }
}

/** The webhook with the patch applied (`externalId`: the one a new destination was checked with). */
function patched(current: WebhookItem, patch: WebhookPatch, externalId: string | undefined): WebhookItem {
  const {
    maxDeliveriesPerSecond,
    notificationType,
    filter,
    ordered,
    signatureScheme: _scheme,
    ...fields
  } = patch;
  const next: WebhookItem = { ...current, ...fields };
  // One target: a URL replaces the destination (and its ExternalId), a destination the URL.
  if (patch.url !== undefined) {
    delete next.destination;
    delete next.externalId;
  }
  if (patch.destination !== undefined) {
    delete next.url;
    if (externalId !== undefined) next.externalId = externalId;
  }
  if (notificationType !== undefined) next.notificationType = [...new Set(notificationType)];
  if (maxDeliveriesPerSecond === null) delete next.maxDeliveriesPerSecond;
  else if (maxDeliveriesPerSecond !== undefined) next.maxDeliveriesPerSecond = maxDeliveriesPerSecond;
  if (filter === null) delete next.filter;
  else if (filter !== undefined) next.filter = filter;
  // Stored only when true: an unordered webhook's item has no `ordered`.
  if (ordered === true) next.ordered = true;
  else if (ordered === false) delete next.ordered;
  return next;
}

/**
 * The webhook's filter against the types it will subscribe to, when either changes: a new
 * filter is refused naming `body.filter`; a stored one the new types make impossible, naming
 * `body.notificationType`.
 */
function checkFilter(
  next: WebhookItem,
  patch: WebhookPatch,
  compileFilter: FilterCompiler | undefined,
): void {
  if (next.filter === undefined || compileFilter === undefined) return;
  if (patch.filter !== undefined) compileFilter(next.filter, next.notificationType, 'body.filter');
  else if (patch.notificationType !== undefined) {
    try {
      compileFilter(next.filter, next.notificationType);
    } catch (error) {
      throw new InvalidInputError(
        `body.notificationType: the webhook's filter does not hold for these types: ${(error as Error).message}`,
        { field: 'notificationType' },
      );
    }
  }
}

type FilterCompiler = typeof import('../filter').compileFilter;

/**
 * The filter compiler when the patch may need it (it changes the filter or the types): loaded
 * here, not at init, so the CEL library (≈ 11 ms of a cold start) is paid only by such patches.
 */
async function filterCompiler(patch: WebhookPatch): Promise<FilterCompiler | undefined> {
  if (patch.filter == null && patch.notificationType === undefined) return undefined;
  return (await import('../filter')).compileFilter;
}

/** The credential a scheme switch would sign with (made before the change: sealing is asynchronous). */
async function switchCredential(
  id: number,
  patch: WebhookPatch,
): Promise<{ fresh: NewCredential; secret?: string } | undefined> {
  if (patch.signatureScheme === 'v1a') return { fresh: await newKeyPair(id) };
  if (patch.signatureScheme !== 'v1') return undefined;
  const secret = generateSecret();
  return { fresh: await newHmacSecret(id, secret), secret };
}

export async function updateWebhook(
  caller: Principal,
  id: number,
  patch: WebhookPatch,
  serviceUrl: string,
): Promise<WebhookView & { secret?: string }> {
  checkPatch(caller, patch);
  const [compileFilter, ownerAdmin, credential, externalId, keysStopped] = await Promise.all([
    filterCompiler(patch),
    ownerIsAdmin(caller, id),
    switchCredential(id, patch),
    checkedExternalId(caller, id, patch),
    patch.ordered === false ? anyKeyNotFlowing(id) : false,
  ]);
  const overlapEnds = new Date(Date.now() + secretOverlapSeconds() * 1000).toISOString();
  const result = await changeWebhook(id, (current) => {
    assertVisible(caller, current);
    if (keysStopped && current.ordered === true && patch.ordered === false)
      throw new ConflictError(
        `body.ordered: webhook ${id} has ordering keys that are parked, held or draining; resume or skip them (GET /webhooks/${id}/ordering-keys) before turning ordering off`,
      );
    let next = patched(current, patch, externalId);
    if (credential !== undefined && patch.signatureScheme !== schemeOf(current)) {
      next = replaceCredential(next, credential.fresh, overlapEnds);
    }
    checkOwnerRights(next, ownerAdmin);
    checkFilter(next, patch, compileFilter);
    const { remove, add, rewrite } = subscriptionChanges(current, next);
    const writes = remove.length + add.length + rewrite.length;
    if (writes > MAX_SUBSCRIPTION_CHANGES) {
      throw new InvalidInputError(
        `body.notificationType: this change rewrites ${writes} subscription items, more than the ${MAX_SUBSCRIPTION_CHANGES} one change may; make it in two steps`,
      );
    }
    return next;
  });
  if (!result) throw webhookNotFound(id);
  const view = webhookView(result.after, serviceUrl);
  // The generated secret only when this change stored it (not when the webhook was v1 already).
  const stored = credential?.fresh.scheme === 'v1' && result.after.secret === credential.fresh.sealedSecret;
  return stored && credential?.secret !== undefined ? { ...view, secret: credential.secret } : view;
}
