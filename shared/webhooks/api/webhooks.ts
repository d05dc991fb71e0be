/**
 * Webhook use cases behind the HTTP routes, with the visibility rules:
 * - only admins may create global webhooks or subscribe to system events (or the wildcard);
 * - admins see (and may delete) every webhook, other users only their own — anything else is
 *   a 404, never a 403, so ids of other users' webhooks are not disclosed;
 * - the secret is encrypted before it is stored and is never returned or logged; so is a `v1a`
 *   webhook's Ed25519 secret key, which the service makes (a caller never brings one, ADR 0018);
 * - a payload filter is compiled against the types the webhook subscribes to before anything is
 *   stored: one that can never work refuses the whole request (400 naming the entry's field and
 *   the line and column), unlike the other per-entry problems, which `errors` lists; so does an
 *   unknown `signatureScheme`, or a `secret` beside `signatureScheme: "v1a"`, or a `destination`
 *   that is not AWS's shape, not in one account, or in the service's own (./destination-trust.ts);
 * - a destination's role is assumed with the owner's ExternalId before the webhook is stored: a
 *   role that refuses is a per-entry error carrying the trust policy it needs.
 */
import { isAdmin, type Principal } from '../../auth/permissions';
import { ConflictError, InvalidInputError, NotFoundError, UnprocessableError } from '../../errors';
import { isPublicAddress, literalIp } from '../../net/addresses';
import { requiresAdmin, type SubscribableName } from '../../notifications/catalog';
import { describeError, logger } from '../../observability/logger';
import { nextId } from '../../store/counters';
import { describeIssues } from '../../validation';
import { deliveryPrincipalArn } from '../aws-trust';
import { allowPrivateTargets, webhookLimits } from '../config';
import { newHmacSecret, newKeyPair, replaceCredential } from '../credentials';
import { type Destination, DestinationSchema, destinationProblem } from '../destination';
import {
  MAX_WEBHOOK_PAGE_SIZE,
  SIGNATURE_SCHEMES,
  type SignatureScheme,
  type WebhookError,
  type WebhookInput,
  WebhookInputSchema,
  type WebhookItem,
  type WebhookListQuery,
  type WebhookPage,
  type WebhookView,
  webhookView,
} from '../model';
import { encodePageKey, NOT_A_TOKEN } from '../page-token';
import { sendPurges } from '../pipeline/drain-message';
import { secretProblem } from '../pipeline/signing';
import {
  deleteWebhookItem,
  getWebhookItem,
  listAllWebhooks,
  listWebhooksByOwner,
  pageWebhooks,
  putWebhook,
} from '../store/webhooks';
import { targetField } from '../target';
import { checkTrust, type TrustCheck } from './destination-trust';
import { parkedKeyCounts, webhookLatency, webhooksHealth } from './health';

/**
 * Whether the URL as written has userinfo (`user:pass@`, and also an empty `:@` or `@`, which
 * the URL parser drops without a trace). The text is first cleaned as the WHATWG parser cleans
 * it (leading and trailing controls and spaces trimmed, tabs and newlines removed anywhere).
 */
function hasUserinfo(raw: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the URL parser trims C0 controls, so this does too
  const cleaned = raw.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  const authority = cleaned.replace(/^[a-z][a-z0-9+.-]*:[/\\]*/i, '').split(/[/\\?#]/)[0] ?? '';
  return authority.includes('@');
}

/** Why the caller may not make a webhook global, or undefined when they may. */
export function globalProblem(caller: Principal, global: boolean): string | undefined {
  return global && !isAdmin(caller) ? 'only APPLICATION_ADMIN users may create global webhooks' : undefined;
}

/** Why the caller may not subscribe to these names, or undefined when they may. */
export function subscriptionProblem(
  caller: Principal,
  names: readonly SubscribableName[],
): string | undefined {
  const adminOnly = [...new Set(names)].filter(requiresAdmin);
  if (isAdmin(caller) || adminOnly.length === 0) return undefined;
  return `only APPLICATION_ADMIN users may subscribe to system events: ${adminOnly.join(', ')}`;
}

/** Why a (schema-valid) URL may not be a webhook's, or undefined when it may. */
export function urlProblem(raw: string): string | undefined {
  const url = new URL(raw);
  if (url.username || url.password || hasUserinfo(raw)) return 'url must not contain credentials';
  const ip = literalIp(url.hostname);
  if (ip !== undefined && !allowPrivateTargets() && !isPublicAddress(ip)) {
    return 'url points to a non-public address';
  }
  return undefined;
}

/** Why a webhook may not be created by this caller, or undefined when it may. */
export function rejectionReason(caller: Principal, input: WebhookInput): string | undefined {
  return (
    globalProblem(caller, input.global) ??
    subscriptionProblem(caller, input.notificationType) ??
    (input.url === undefined ? undefined : urlProblem(input.url)) ??
    (input.secret === undefined ? undefined : secretProblem(input.secret))
  );
}

function describeEntry(raw: unknown): Pick<WebhookError, 'name' | 'url'> {
  const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  return {
    ...(typeof entry.name === 'string' ? { name: entry.name.slice(0, 200) } : {}),
    ...(typeof entry.url === 'string' ? { url: entry.url.slice(0, 2048) } : {}),
  };
}

/** A new webhook with its signing credential: a new key pair (`v1a`), the caller's secret, or none. */
async function withCredential(item: WebhookItem, input: WebhookInput): Promise<WebhookItem> {
  const fresh =
    input.signatureScheme === 'v1a'
      ? await newKeyPair(item.id)
      : input.secret !== undefined
        ? await newHmacSecret(item.id, input.secret)
        : undefined;
  return fresh === undefined ? item : replaceCredential(item, fresh, item.createdAt);
}

/**
 * The whole-request refusals of the signature settings (400 naming the entry's field): an unknown
 * scheme, or an HMAC secret on a `v1a` webhook, is a caller's mistake rather than a webhook
 * another entry's success should hide.
 */
function checkSignatureSettings(entries: readonly unknown[]): void {
  entries.forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null) return;
    const { signatureScheme, secret } = raw as Record<string, unknown>;
    const field = `body.webhooks[${index}]`;
    if (signatureScheme !== undefined && !SIGNATURE_SCHEMES.includes(signatureScheme as SignatureScheme)) {
      throw new InvalidInputError(
        `${field}.signatureScheme: must be "v1" (HMAC with the secret, unsigned without one) or "v1a" (Ed25519)`,
      );
    }
    if (signatureScheme === 'v1a' && secret !== undefined) {
      throw new InvalidInputError(
        `${field}.secret: a v1a webhook signs with an Ed25519 key pair the service makes (its public key is answered and published); send no secret with it`,
      );
    }
  });
}

/**
 * Why a destination (schema-valid or not) may not be stored, as `[field under destination, message]`:
 * its shape, or a rule across its fields (./destination.ts).
 */
export function destinationFieldProblem(raw: unknown): [string, string] | undefined {
  const parsed = DestinationSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    return [field === '' ? '' : `.${field}`, issue?.message ?? 'is not a destination'];
  }
  const problem = destinationProblem(parsed.data, deliveryPrincipalArn());
  return problem && [`.${problem[0]}`, problem[1]];
}

/**
 * The whole-request refusals of destinations (400 naming the entry's field): a URL beside a
 * destination, or a destination that is not AWS's shape, not in one account, or in ours.
 */
function checkDestinations(entries: readonly unknown[]): void {
  entries.forEach((raw, index) => {
    if (typeof raw !== 'object' || raw === null) return;
    const { url, destination } = raw as Record<string, unknown>;
    if (destination === undefined) return;
    const field = `body.webhooks[${index}].destination`;
    if (url !== undefined) throw new InvalidInputError(`${field}: send either url or destination, not both`);
    const problem = destinationFieldProblem(destination);
    if (problem) throw new InvalidInputError(`${field}${problem[0]}: ${problem[1]}`);
  });
}

/** The trust checks of the entries with a destination, all at once (ids: the entries' new ids). */
async function trustChecks(
  owner: number,
  accepted: readonly { input: WebhookInput }[],
  ids: readonly number[],
): Promise<(TrustCheck | undefined)[]> {
  return Promise.all(
    accepted.map(({ input }, n) =>
      input.destination === undefined ? undefined : checkTrust(owner, input.destination, ids[n] as number),
    ),
  );
}

/** The per-URL limit's refusal for a destination, naming its field and what it is (`the same topic`). */
function sameTargetMessage(destination: Destination, sameUrl: string): string {
  const { field, what } = targetField({ destination });
  return `${field}: ${sameUrl.replace('same URL', `same ${what}`)}`;
}

/** The new webhook's target: its URL, or its destination with the ExternalId checked. */
const targetOf = (input: WebhookInput, trust: TrustCheck | undefined) =>
  input.destination !== undefined && trust !== undefined && 'externalId' in trust
    ? { destination: input.destination as Destination, externalId: trust.externalId }
    : { url: input.url ?? '' };

export async function createWebhooks(
  caller: Principal,
  entries: readonly unknown[],
  serviceUrl: string,
): Promise<{ createdWebhooks: WebhookView[]; errors: WebhookError[] }> {
  checkSignatureSettings(entries);
  checkDestinations(entries);
  const errors: WebhookError[] = [];
  const accepted: { index: number; input: WebhookInput }[] = [];
  entries.forEach((raw, index) => {
    const parsed = WebhookInputSchema.safeParse(raw);
    if (!parsed.success) {
      errors.push({ index, ...describeEntry(raw), message: describeIssues(parsed.error.issues) });
      return;
    }
    const reason = rejectionReason(caller, parsed.data);
    if (reason)
      errors.push({
        index,
        name: parsed.data.name,
        ...(parsed.data.url !== undefined ? { url: parsed.data.url } : {}),
        message: reason,
      });
    else accepted.push({ index, input: parsed.data });
  });
  if (accepted.some(({ input }) => input.filter !== undefined)) {
    // Loaded when an entry has a filter: the CEL library and its environment (≈ 11 ms of a cold
    // start) are not paid by the routes that share this module and never compile one.
    const { compileFilter } = await import('../filter');
    for (const { index, input } of accepted) {
      if (input.filter !== undefined)
        compileFilter(input.filter, input.notificationType, `body.webhooks[${index}].filter`);
    }
  }
  const limits = webhookLimits();
  const quota = isAdmin(caller) ? limits.perAdmin : limits.perUser;
  const limitMessage = {
    quota: `webhook quota reached: a user may have at most ${limits.perUser} webhooks (an admin ${limits.perAdmin}); delete one first`,
    sameUrl: `at most ${limits.perUrl} webhook${limits.perUrl === 1 ? '' : 's'} of one user may use the same URL`,
  };
  const createdWebhooks: WebhookView[] = [];
  // Ids first (in the entries' order), so every destination's role is assumed at once, its
  // session named after the webhook it will be.
  const ids: number[] = [];
  for (const _ of accepted) ids.push(await nextId('webhooks'));
  const trust = await trustChecks(caller.userId, accepted, ids);
  for (const [n, { index, input }] of accepted.entries()) {
    const check = trust[n];
    if (check !== undefined && 'problem' in check) {
      errors.push({
        index,
        name: input.name,
        message: `destination.roleArn: ${check.problem}`,
        ...(check.trustPolicy !== undefined ? { trustPolicy: check.trustPolicy } : {}),
      });
      continue;
    }
    const now = new Date().toISOString();
    const id = ids[n] as number;
    const item: WebhookItem = {
      id,
      name: input.name,
      ...targetOf(input, check),
      global: input.global,
      notificationType: [...new Set(input.notificationType)],
      actionType: input.actionType,
      createdBy: caller.userId,
      createdAt: now,
      updatedAt: now,
      ...(input.maxDeliveriesPerSecond !== undefined
        ? { maxDeliveriesPerSecond: input.maxDeliveriesPerSecond }
        : {}),
      ...(input.filter !== undefined ? { filter: input.filter } : {}),
      ...(input.ordered === true ? { ordered: true } : {}),
      status: 'enabled',
      version: 1,
    };
    const signed = await withCredential(item, input);
    const outcome = await putWebhook(signed, { total: quota, sameUrl: limits.perUrl });
    if (outcome === 'created') createdWebhooks.push(webhookView(signed, serviceUrl));
    else
      errors.push({
        index,
        name: input.name,
        ...(input.url !== undefined ? { url: input.url } : {}),
        message:
          outcome === 'sameUrl' && input.destination !== undefined
            ? sameTargetMessage(input.destination as Destination, limitMessage.sameUrl)
            : limitMessage[outcome],
      });
  }
  errors.sort((a, b) => a.index - b.index);
  if (createdWebhooks.length === 0) {
    throw new UnprocessableError('no webhook was created', { createdWebhooks, errors });
  }
  return { createdWebhooks, errors };
}

function canSeeWebhook(caller: Principal, item: Pick<WebhookItem, 'createdBy'>): boolean {
  return isAdmin(caller) || item.createdBy === caller.userId;
}

/**
 * The webhooks the caller sees: all of them (the spec's answer) when no paging parameter is
 * sent, otherwise one page. Admins page the whole table, others their own webhooks.
 */
export async function listWebhooks(
  caller: Principal,
  query: WebhookListQuery,
  serviceUrl: string,
): Promise<WebhookView[] | WebhookPage> {
  const owner = isAdmin(caller) ? undefined : caller.userId;
  if (query.pageSize === undefined && query.nextToken === undefined) {
    const items = owner === undefined ? await listAllWebhooks() : await listWebhooksByOwner(owner);
    return withHealth(items, serviceUrl);
  }
  const start = query.nextToken;
  if (start !== undefined && !isPageKeyOf(start, owner)) {
    throw new InvalidInputError(`invalid query: query.nextToken: ${NOT_A_TOKEN}`);
  }
  const page = await pageWebhooks(owner, query.pageSize ?? MAX_WEBHOOK_PAGE_SIZE, start);
  return {
    webhooks: await withHealth(page.items, serviceUrl),
    ...(page.next ? { nextToken: encodePageKey(page.next) } : {}),
  };
}

/** A table key (admins) or an owner-index key of this owner. */
function isPageKeyOf(key: Record<string, number>, owner: number | undefined): boolean {
  const names = Object.keys(key).sort().join(',');
  return owner === undefined ? names === 'id' : names === 'createdBy,id' && key.createdBy === owner;
}

/** The 404 of a webhook the caller may not see (whether or not it exists). */
export const webhookNotFound = (id: number) => new NotFoundError(`webhook ${id} not found`);

/** The webhook if the caller may see it; a 404 otherwise (whether or not it exists). */
export async function findVisibleWebhook(
  caller: Principal,
  id: number,
  consistent = false,
): Promise<WebhookItem> {
  const item = await getWebhookItem(id, consistent);
  if (!item || !canSeeWebhook(caller, item)) throw webhookNotFound(id);
  return item;
}

/** Checks that the caller may see a webhook just read (inside a change: the owner never changes). */
export function assertVisible(caller: Principal, item: WebhookItem): void {
  if (!canSeeWebhook(caller, item)) throw webhookNotFound(item.id);
}

export async function getWebhook(caller: Principal, id: number, serviceUrl: string): Promise<WebhookView> {
  const item = await findVisibleWebhook(caller, id);
  const [[view], latency24h] = await Promise.all([withHealth([item], serviceUrl), webhookLatency(item.id)]);
  const shown = view as WebhookView;
  return shown.health ? { ...shown, health: { ...shown.health, latency24h } } : shown;
}

/** The views of these webhooks, each with its health (read for all of them at once). */
async function withHealth(items: readonly WebhookItem[], serviceUrl: string): Promise<WebhookView[]> {
  const [health, parked] = await Promise.all([
    webhooksHealth(items.map((item) => item.id)),
    parkedKeyCounts(items.filter((item) => item.ordered === true).map((item) => item.id)),
  ]);
  return items.map((item) => {
    const figures = health.get(item.id);
    const parkedKeys = parked.get(item.id);
    return {
      ...webhookView(item, serviceUrl),
      ...(figures ? { health: parkedKeys === undefined ? figures : { ...figures, parkedKeys } } : {}),
    };
  });
}

/**
 * A deleted webhook's stopped ordering keys are purged by their drain messages. The webhook is
 * gone whatever happens here, so a failure to send them is logged for an operator (the keys'
 * items stay in orderedKeys), not answered: a DELETE sent again would find nothing to delete.
 */
async function purgeOrderedKeys(webhookId: number): Promise<void> {
  try {
    const keys = await sendPurges(webhookId);
    if (keys > 0)
      logger.info('deleted ordered webhook: its stopped keys are being purged', { webhookId, keys });
  } catch (error) {
    logger.error('deleted ordered webhook: its stopped keys were not all sent to be purged', {
      webhookId,
      ...describeError(error),
    });
  }
}

/** Deletes the webhook as it is now (a concurrent change makes it read again). */
export async function deleteWebhook(caller: Principal, id: number, serviceUrl: string): Promise<WebhookView> {
  for (let round = 0; round < 25; round++) {
    const item = await findVisibleWebhook(caller, id, true);
    const outcome = await deleteWebhookItem(item);
    if (outcome === 'deleted') {
      // Every deleted webhook is looked at (one Query): one no longer ordered may have kept a key
      // parked in the instant its `ordered` was turned off.
      await purgeOrderedKeys(item.id);
      return webhookView(item, serviceUrl);
    }
    if (outcome === 'gone') throw webhookNotFound(id);
  }
  throw new ConflictError(`webhook ${id} is being changed concurrently; try again`);
}
