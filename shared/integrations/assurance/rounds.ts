/**
 * The rounds of the periodic checks on the `integrationChecks` queue: a schedule starts a round
 * with one page message; each page fans out a check message per integration on it and the next
 * page's message, so no function walks every integration. A check waits while another check
 * holds its remote host.
 */
import * as z from 'zod/mini';
import { done, type Next, retryIn } from '../../edge/queue/contract';
import { sendAll } from '../../store/queues';
import { CHECKED_STATUSES } from '../lifecycle';
import { checkablePage } from '../store/checks';
import { type AssuranceExtension, checkIntegration, HostBusyError } from './check';

/** Integrations read per page of a round. */
const PAGE_SIZE = 100;

export const CheckMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('page'),
    /** When the round started (the schedule's time): every check of the round carries it. */
    round: z.string(),
    cursor: z.optional(z.record(z.string(), z.unknown())),
  }),
  z.object({
    kind: z.literal('check'),
    round: z.string(),
    integrationId: z.int().check(z.positive()),
  }),
]);
type CheckMessage = z.infer<typeof CheckMessageSchema>;

/** A round: one page message (the schedule's only work, however many integrations there are). */
export async function startRound(at = new Date()): Promise<string> {
  const round = at.toISOString();
  await sendAll('integrationChecks', [JSON.stringify({ kind: 'page', round } satisfies CheckMessage)]);
  return round;
}

/** A check now, outside the schedule (the CLI's `integrations check`). */
export async function requestCheck(integrationId: number): Promise<string> {
  const round = new Date().toISOString();
  await sendAll('integrationChecks', [
    JSON.stringify({ kind: 'check', round, integrationId } satisfies CheckMessage),
  ]);
  return round;
}

/** One page of a round: a check message per integration on it, and the next page's message. */
async function expandPage(message: Extract<CheckMessage, { kind: 'page' }>): Promise<number> {
  const { ids, next } = await checkablePage(CHECKED_STATUSES, message.cursor, PAGE_SIZE);
  const bodies = ids.map((integrationId) =>
    JSON.stringify({ kind: 'check', round: message.round, integrationId } satisfies CheckMessage),
  );
  if (next)
    bodies.push(JSON.stringify({ kind: 'page', round: message.round, cursor: next } satisfies CheckMessage));
  if (bodies.length > 0) await sendAll('integrationChecks', bodies);
  return ids.length;
}

/** Seconds a check waits before trying a host another check holds. */
const BUSY_HOST_DELAY_SECONDS = 10;

/** One message of the `integrationChecks` queue: a page of a round, or one integration's check. */
export async function checkMessage(message: CheckMessage, extension?: AssuranceExtension): Promise<Next> {
  if (message.kind === 'page') return done({ page: true, checks: await expandPage(message) });
  try {
    return done(await checkIntegration(message.integrationId, message.round, extension));
  } catch (error) {
    if (!(error instanceof HostBusyError)) throw error;
    return retryIn(BUSY_HOST_DELAY_SECONDS, error.message);
  }
}
