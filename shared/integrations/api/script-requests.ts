/**
 * What the script routes accept in a body, checked at the edge like every other body: a type the
 * route accepts (its module's `remote.scriptRoutes`), a setup mode the script is meaningful for,
 * and a config the type's schema accepts. Schemas only: the route contracts import this, so every
 * integration function bundles it.
 *
 * Setup scripts (`initial-create`, `create`) are for manual setup: with `autoBootstrap` true the
 * service runs those statements itself. Removal scripts (`cleanup`, `post-cleanup`) and the edit
 * script follow the body's mode: an automatic setup's removal leaves the operator's own accounts
 * alone, which is what an automatic integration whose setup failed needs.
 */
import * as z from 'zod/mini';
import {
  type BodyScriptKind,
  INTEGRATION_TYPES,
  type IntegrationType,
  isSqlType,
  payloadSchemaFor,
  type SqlPayload,
  typesWhere,
} from '../../platforms';

/** Types each body script route accepts (their modules' `remote.scriptRoutes`). */
function acceptedTypes(kind: BodyScriptKind): IntegrationType[] {
  return typesWhere((m) => m.remote?.scriptRoutes?.includes(kind) ?? false);
}

/** Scripts that only a manual setup runs by hand. */
const MANUAL_ONLY = new Set<BodyScriptKind>(['initial-create', 'create']);

/** The SQL types (script bodies document them). */
export const SQL_TYPES = INTEGRATION_TYPES.filter(isSqlType) as [IntegrationType, ...IntegrationType[]];

/** A script route's body, parsed to the type's payload. */
export function scriptBodySchema(kind: BodyScriptKind) {
  return z.pipe(
    z.looseObject({
      type: z.string(),
      autoBootstrap: z.boolean(),
      config: z.record(z.string(), z.unknown()),
    }),
    z.transform((body, ctx): SqlPayload => {
      const accepted = acceptedTypes(kind);
      if (!(accepted as string[]).includes(body.type)) {
        ctx.issues.push({
          code: 'custom',
          input: body,
          message: `type ${body.type} is not accepted here; accepted types: ${accepted.join(', ')}`,
        });
        return z.NEVER;
      }
      if (body.autoBootstrap !== false && MANUAL_ONLY.has(kind)) {
        ctx.issues.push({
          code: 'custom',
          input: body,
          message: `autoBootstrap must be false: with automatic setup the service runs the ${kind} statements itself`,
        });
        return z.NEVER;
      }
      const parsed = payloadSchemaFor(body).safeParse(body);
      if (!parsed.success) {
        ctx.issues.push(...(parsed.error.issues as z.core.$ZodRawIssue[]));
        return z.NEVER;
      }
      return parsed.data as SqlPayload;
    }),
  );
}
