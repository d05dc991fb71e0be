/**
 * The script routes' request and response shapes (the manual setup's scripts). Apart from
 * `./api.ts` so the other integration functions do not bundle them.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { JSON_OR_YAML } from '../../edge/yaml-body';
import { described, withMeta } from '../../schema-meta';
import { IntegrationIdParamsSchema } from './contracts';
import { SQL_TYPES, scriptBodySchema } from './script-requests';

const ScriptResponseSchema = withMeta(
  z.object({
    script: described(
      z.string(),
      'The statements as one script, with comments saying where to run each section.',
    ),
    statements: described(
      z.array(z.string()),
      'The same statements, one per entry, without trailing semicolons.',
    ),
  }),
  { id: 'Script' },
);
export type ScriptResponse = z.infer<typeof ScriptResponseSchema>;

const SCRIPT_ERRORS = {
  400: {
    description:
      'Invalid body, a type this endpoint does not accept, autoBootstrap true for a setup script, or a value no script can carry safely.',
  },
  401: { description: 'No or an invalid API key.' },
  403: { description: 'The caller lacks APPLICATION_ADMIN.' },
};
const SCRIPT = {
  description:
    'The script: JSON `{script, statements}` by default; the script alone as text/plain when the Accept header prefers text/plain.',
  schema: ScriptResponseSchema,
  contentTypes: ['application/json', 'text/plain'],
};
const ScriptRequestSchema = withMeta(
  z.object({
    type: z.enum(SQL_TYPES),
    autoBootstrap: described(
      z.boolean(),
      'false for the setup scripts (initial-create, create); the removal scripts and the edit script follow the mode given (an automatic setup removes no account of the operator).',
    ),
    config: described(z.record(z.string(), z.unknown()), "The type's config, as for POST /integrations."),
  }),
  { id: 'ScriptRequest' },
);
const scriptBody = (kind: Parameters<typeof scriptBodySchema>[0]) => ({
  body: scriptBodySchema(kind),
  documentedBody: ScriptRequestSchema,
  bodyFormats: JSON_OR_YAML,
});
const storedIntegration = {
  404: { description: 'No integration with the id.' },
  409: { description: 'The integration has been deleted.' },
};

export const scriptContracts = {
  'POST /integrations/scripts/initial-create': {
    ...scriptBody('initial-create'),
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS },
  },
  'POST /integrations/scripts/create': {
    ...scriptBody('create'),
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS },
  },
  'POST /integrations/{id}/scripts/edit': {
    params: IntegrationIdParamsSchema,
    ...scriptBody('edit'),
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS, ...storedIntegration },
  },
  'POST /integrations/{id}/scripts/delete': {
    params: IntegrationIdParamsSchema,
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS, ...storedIntegration },
  },
  'POST /integrations/{id}/scripts/cleanup': {
    params: IntegrationIdParamsSchema,
    responses: {
      200: SCRIPT,
      ...SCRIPT_ERRORS,
      ...storedIntegration,
      409: {
        description:
          'The integration’s setup is in use (enabled, recurringValidationError, in flight, or editError with nothing left behind by the edit), or it has been deleted: the cleanup script is only for a failed setup or teardown, or a force-disabled integration.',
      },
    },
  },
  'POST /integrations/{id}/scripts/repair': {
    params: IntegrationIdParamsSchema,
    responses: {
      200: SCRIPT,
      ...SCRIPT_ERRORS,
      ...storedIntegration,
      409: { description: 'The integration has been deleted, or is not in recurringValidationError.' },
    },
  },
  'POST /integrations/scripts/cleanup': {
    ...scriptBody('cleanup'),
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS },
  },
  'POST /integrations/scripts/post-cleanup': {
    ...scriptBody('post-cleanup'),
    responses: { 200: SCRIPT, ...SCRIPT_ERRORS },
  },
} satisfies Record<string, RouteContract>;
