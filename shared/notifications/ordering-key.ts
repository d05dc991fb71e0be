/**
 * An ordering key (ADR 0020): what a notification message's `orderingKey` holds and what the
 * ordering-keys routes take in their path (percent-encoded there). Apart from ./message.ts so
 * that a route that names a key does not build the notification message's schemas.
 */
import * as z from 'zod/mini';

/** An SQS message group id's longest length: the key is the intake queue's message group. */
export const MAX_ORDERING_KEY_LENGTH = 128;

/** Letters, digits and punctuation: what SQS allows in a message group id. */
export const ORDERING_KEY = /^[\x21-\x7e]+$/;

export const orderingKeySchema = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(MAX_ORDERING_KEY_LENGTH),
      z.regex(ORDERING_KEY, 'letters, digits and punctuation (what SQS allows in a message group id)'),
    );
