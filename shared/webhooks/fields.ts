/**
 * Field schemas that both the webhook model (`./model.ts`) and the filter preview's contract
 * (`./api/filter-preview-contract.ts`) use, apart from both so the preview's function builds
 * only its own schemas (`docs/benchmarks.md`, figure 5).
 */
import * as z from 'zod/mini';
import { described } from '../schema-meta';

/** Longer text is refused by the schema before it is compiled (the filter's own bound is 2 KB). */
const MAX_FILTER_TEXT = 16_384;

export const filter = described(
  z.string().check(z.minLength(1), z.maxLength(MAX_FILTER_TEXT)),
  'a CEL expression over the payload as delivered (`text`, `metadata`, `webhookId`, `webhookName`); only notifications for which it is true are delivered. At most 2,048 bytes; the allowed subset, the fields and the cost rules are in docs/webhooks.md. Example: `metadata.notificationType == "modelAccessRequested" && has(metadata.dataSourceId) && metadata.dataSourceId in [42, 43]`',
);
