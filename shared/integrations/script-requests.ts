/**
 * What the script routes accept in a body, checked at the edge like every other body: a type the
 * route accepts (its module's `remote.scriptRoutes`), `autoBootstrap` false (scripts are for
 * manual setup), and a config the type's schema accepts. Schemas only: the route contracts
 * import this, so every integration function bundles it.
 */
import * as z from 'zod';
import {
  type BodyScriptKind,
  INTEGRATION_TYPES,
  type IntegrationType,
  isSqlType,
  payloadSchemaFor,
  type SqlPayload,
  typesWhere,
} from '../platforms';

/** Types each body script route accepts (their modules' `remote.scriptRoutes`). */
export function acceptedTypes(kind: BodyScriptKind): IntegrationType[] {
  return typesWhere((m) => m.remote?.scriptRoutes?.includes(kind) ?? false);
}

/** The SQL types (script bodies document them). */
export const SQL_TYPES = INTEGRATION_TYPES.filter(isSqlType) as [IntegrationType, ...IntegrationType[]];

/** A script route's body, parsed to the type's payload. */
export function scriptBodySchema(kind: BodyScriptKind) {
  return z
    .looseObject({
      type: z.string(),
      autoBootstrap: z.boolean(),
      config: z.record(z.string(), z.unknown()),
    })
    .transform((body, ctx): SqlPayload => {
      const accepted = acceptedTypes(kind);
      if (!(accepted as string[]).includes(body.type)) {
        ctx.addIssue({
          code: 'custom',
          message: `type ${body.type} is not accepted here; accepted types: ${accepted.join(', ')}`,
        });
        return z.NEVER;
      }
      if (body.autoBootstrap !== false) {
        ctx.addIssue({
          code: 'custom',
          message: 'autoBootstrap must be false: scripts are for manual setup',
        });
        return z.NEVER;
      }
      const parsed = payloadSchemaFor(body).safeParse(body);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue(issue as z.core.$ZodRawIssue);
        return z.NEVER;
      }
      return parsed.data as SqlPayload;
    });
}
