/**
 * What a queue consumer's handler is given and what it answers (ADR 0014). A handler gets a
 * typed message and this context, and returns what should happen next; the edge
 * (./consumer.ts) does it. No handler sees a receipt handle, a receive count or a visibility call.
 */

/** What the edge knows about a message when its handler runs. */
export interface MessageContext {
  /**
   * 1 for the first attempt at the work the message carries. On a standard queue: the attempts
   * made before the message was sent (its body says so; see `attemptsBefore`) plus its receive
   * count. On a FIFO queue: the consumer's own count (`attemptOf`), since the receive count also
   * counts the messages returned behind a failed head of their group.
   */
  readonly attempt: number;
  /**
   * The message was received before: an earlier receive may have done part of its work and then
   * ended without finishing it (its process killed, its invocation timed out, a failure).
   */
  readonly redelivered: boolean;
  /** When the invocation ends (epoch ms): whatever must still happen has to happen before. */
  readonly deadline: number;
  readonly messageId: string;
  /** The message group, on a FIFO queue. */
  readonly groupId?: string;
  /** When the message entered the queue (epoch ms). */
  readonly sentAt?: number;
  /** The X-Ray trace header the message's sender had, if any. */
  readonly traceHeader?: string;
}

/** What happens to the message after its handler. */
export type Next =
  /** Finished: the message is deleted. `result` is what the record's run answers (tests, logs). */
  | { readonly kind: 'done'; readonly result?: unknown }
  /** Again in `delaySeconds`: the message's visibility is set, and it is a batch item failure. */
  | { readonly kind: 'retry'; readonly delaySeconds: number; readonly reason: string }
  /** A new message with this body replaces this one, visible after `delaySeconds`; `result` as for done. */
  | {
      readonly kind: 'sendAgain';
      readonly body: unknown;
      readonly delaySeconds: number;
      readonly reason: string;
      readonly result?: unknown;
    }
  /** To the queue's dead-letter queue with the reason (the message's body as it came). */
  | { readonly kind: 'deadLetter'; readonly reason: string };

export const done = (result?: unknown): Next =>
  result === undefined ? { kind: 'done' } : { kind: 'done', result };

export const retryIn = (delaySeconds: number, reason: string): Next => ({
  kind: 'retry',
  delaySeconds,
  reason,
});

/**
 * The throttle's deferral and the fan-out's continuation: this message is done, one with `body`
 * comes in its place after `delaySeconds` (at most 15 minutes; no delay on a FIFO queue).
 */
export const sendAgain = (body: unknown, delaySeconds: number, reason: string, result?: unknown): Next => ({
  kind: 'sendAgain',
  body,
  delaySeconds,
  reason,
  ...(result === undefined ? {} : { result }),
});

export const deadLetter = (reason: string): Next => ({ kind: 'deadLetter', reason });

export type MessageHandler<T> = (message: T, context: MessageContext) => Promise<Next>;
