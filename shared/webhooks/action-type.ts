/**
 * What a history record's webhook was set up for. Apart from the webhook model (`./model.ts`) so
 * the history's shapes (`./history-model.ts`) do not build the whole model at a function's init
 * (ADR 0021).
 */
import * as z from 'zod/mini';

export const ActionTypeSchema = z.enum(['triggered', 'receive']);
