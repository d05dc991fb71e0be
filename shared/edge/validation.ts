/** Path parameter schemas shared by the route contracts. */
import * as z from 'zod';

/**
 * A path id: a positive integer in canonical form (no sign, leading zeros or exponent) that
 * fits a safe integer. Larger values would lose precision and DynamoDB's marshaller refuses
 * them, so they must be a 400 here rather than a 500 later. Parsed to a number.
 */
export const idParam = () =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .refine((v) => Number.isSafeInteger(Number(v)), {
      message: `must be a positive integer no larger than ${Number.MAX_SAFE_INTEGER}`,
    })
    .transform(Number);
