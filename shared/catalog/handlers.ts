/**
 * Every Lambda handler module the catalogs name, with the kind of function it becomes: what
 * one CDK app bundles, what the cold-start benchmark measures, what the bundle test imports.
 */
import type { FunctionAccess } from './access';
import { internalFunctions, schedules } from './functions';
import { queues } from './queues';
import { routes } from './routes';
import { streamConsumers } from './streams';
import { workflows } from './workflows';

/** The HTTP API's Lambda request authorizer. */
export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';
/** What the authorizer reads: the key hash and the principal behind it. */
export const AUTHORIZER_ACCESS: FunctionAccess = {
  tables: [
    { table: 'apiKeys', access: 'read' },
    { table: 'principals', access: 'read' },
  ],
};
/** The `$default` route: answers requests no route matches (404/405 in the service's shape). */
export const DEFAULT_ROUTE_HANDLER = 'functions/service/not-found.ts';

export type HandlerKind = 'api' | 'authorizer' | 'consumer' | 'workflow' | 'internal' | 'schedule';

export interface CatalogedHandler {
  handler: string;
  kind: HandlerKind;
}

/** Each handler module once, in catalog order. */
export function catalogHandlers(): CatalogedHandler[] {
  const list: CatalogedHandler[] = [
    { handler: AUTHORIZER_HANDLER, kind: 'authorizer' },
    { handler: DEFAULT_ROUTE_HANDLER, kind: 'api' },
    ...routes.map((r) => ({ handler: r.handler as string, kind: 'api' as const })),
    ...queues.map((q) => ({ handler: q.consumer.handler as string, kind: 'consumer' as const })),
    ...streamConsumers.map((c) => ({ handler: c.handler as string, kind: 'consumer' as const })),
    ...workflows.flatMap((w) =>
      Object.values(w.tasks).map((t) => ({ handler: t.handler as string, kind: 'workflow' as const })),
    ),
    ...internalFunctions.map((f) => ({ handler: f.handler as string, kind: 'internal' as const })),
    ...(schedules as readonly { handler: string }[]).map((s) => ({
      handler: s.handler,
      kind: 'schedule' as const,
    })),
  ];
  const seen = new Set<string>();
  return list.filter((h) => !seen.has(h.handler) && seen.add(h.handler));
}
