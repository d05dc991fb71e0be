/**
 * The integrations routes' request and response shapes (the handlers validate with the same
 * schemas the OpenAPI document shows). Spread into `contracts` in shared/openapi/contracts.ts.
 */
import * as z from 'zod/mini';
import type { RouteContract } from '../../catalog/contract';
import { ErrorBodySchema } from '../../edge/error-body';
import type { ApiResult } from '../../edge/handler';
import { queryBoolean } from '../../edge/validation';
import { JSON_OR_YAML } from '../../edge/yaml-body';
import { integrationTypeSchema, platforms } from '../../platforms';
import { IntegrationPayloadSchema } from '../../platforms/payload-schema';
import { assuranceFindingSchema, validationResultsSchema } from '../../platforms/port';
import { described, withMeta } from '../../schema-meta';
import { IntegrationStatusSchema } from '../lifecycle';
import { conflict, IntegrationIdParamsSchema } from './contract-parts';

export { IntegrationIdParamsSchema } from './contract-parts';

const flag = z.pipe(
  z.optional(queryBoolean({ error: 'must be true or false' })),
  z.transform((v) => v === true),
);

/** A JSON (or YAML) object: PUT and DELETE check it against the stored integration's type in the use case. */
const ObjectBodySchema = z.record(z.string(), z.unknown(), { error: 'the request body must be an object' });

const DryRunQuerySchema = z.object({ dryRun: flag });
const DeleteQuerySchema = z.object({ dryRun: flag, forceDisable: flag });

const IntegrationResponseSchema = withMeta(
  z.object({
    id: z.string(),
    status: IntegrationStatusSchema,
    type: integrationTypeSchema(),
    autoBootstrap: z.optional(z.boolean()),
    config: described(
      z.optional(z.record(z.string(), z.unknown())),
      'The config in effect, defaults applied, every secret shown as [REDACTED].',
    ),
    validationResults: z.optional(validationResultsSchema()),
    statusMessage: described(z.optional(z.string()), 'Why the last operation failed.'),
    lastCheckedAt: described(z.optional(z.string()), 'When the last periodic check ran.'),
    findings: described(
      z.optional(z.array(assuranceFindingSchema())),
      'What the last periodic check found wrong: setup objects and grants missing, grants nobody planned (privilege creep).',
    ),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  { id: 'Integration' },
);
export type IntegrationResponse = z.infer<typeof IntegrationResponseSchema>;

const AcceptedResponseSchema = withMeta(
  z.object({
    id: z.string(),
    status: IntegrationStatusSchema,
    validationResults: validationResultsSchema(),
    apiKey: described(z.optional(z.string()), 'FederatedSql create only: the cluster API key, shown once.'),
    configurationSnippet: described(
      z.optional(z.string()),
      'FederatedSql create only: the access-control plugin configuration, shown once.',
    ),
  }),
  { id: 'IntegrationAccepted' },
);
export type AcceptedResponse = z.infer<typeof AcceptedResponseSchema>;

const DryRunResponseSchema = withMeta(z.object({ validationResults: validationResultsSchema() }), {
  id: 'IntegrationDryRun',
});

const IntegrationStatusResponseSchema = withMeta(
  z.object({ id: z.int(), status: IntegrationStatusSchema, statusMessage: z.optional(z.string()) }),
  { id: 'IntegrationStatus' },
);
export type IntegrationStatusResponse = z.infer<typeof IntegrationStatusResponseSchema>;

/** 422: a validation test failed; `validationResults` says which and why. */
const validationFailed = {
  description: 'A validation test failed; the body carries validationResults.',
  schema: z.extend(ErrorBodySchema, { validationResults: validationResultsSchema() }),
};

/** 502: the platform connector could not run the validation tests. */
const connectorFailed = { description: 'The platform connector could not run the validation tests; retry.' };

export const integrationContracts = {
  'GET /integrations': {
    responses: { 200: { description: 'Every integration.', schema: z.array(IntegrationResponseSchema) } },
  },
  'POST /integrations': {
    query: DryRunQuerySchema,
    body: IntegrationPayloadSchema,
    bodyFormats: JSON_OR_YAML,
    responses: {
      200: { description: 'Dry run: nothing created; the validation results.', schema: DryRunResponseSchema },
      202: {
        description: 'Accepted: status creating; poll the status route.',
        schema: AcceptedResponseSchema,
      },
      409: conflict('An integration already exists on the host (the message names its id).'),
      422: validationFailed,
      502: connectorFailed,
    },
  },
  'GET /integrations/{id}': {
    params: IntegrationIdParamsSchema,
    responses: {
      200: { description: 'The integration.', schema: IntegrationResponseSchema },
      404: { description: 'No integration with the id.' },
    },
  },
  'PUT /integrations/{id}': {
    params: IntegrationIdParamsSchema,
    query: DryRunQuerySchema,
    // Secrets sent as the redaction placeholder are restored from the stored integration before
    // the type's schema can apply: the use case validates the restored payload.
    body: ObjectBodySchema,
    documentedBody: IntegrationPayloadSchema,
    bodyFormats: JSON_OR_YAML,
    responses: {
      200: { description: 'Dry run: nothing changed; the validation results.', schema: DryRunResponseSchema },
      202: {
        description: 'Accepted: status editing (or creating, when retrying a failed creation).',
        schema: AcceptedResponseSchema,
      },
      404: { description: 'No integration with the id.' },
      400: {
        description:
          'The body does not match the contract, or `attributes` names the non-editable fields that were changed.',
        schema: z.extend(ErrorBodySchema, { attributes: z.optional(z.array(z.string())) }),
      },
      409: conflict('Being modified or deleted, or deleted (re-create with POST).'),
      422: validationFailed,
      502: connectorFailed,
    },
  },
  'DELETE /integrations/{id}': {
    params: IntegrationIdParamsSchema,
    query: DeleteQuerySchema,
    // Privileged credentials of the integration's type; only automatic AnalyticsWarehouse,
    // ClusterWarehouse and CloudWarehouse integrations take (and need) them.
    // Which credentials (if any) a DELETE takes depends on the stored integration: the use case checks them.
    body: z.union([ObjectBodySchema, z.null()]),
    // Each type's credentials marked with the type (`x-integration-type`) and the fields an
    // automatic integration's DELETE must send (`x-required`), so a client can ask for them by name.
    documentedBody: z.union(
      platforms().flatMap((m) =>
        m.deletion
          ? [
              withMeta(m.deletion.schema, {
                'x-integration-type': m.type,
                ...(m.deletion.requiredWhenAutomatic
                  ? { 'x-required': [...m.deletion.requiredWhenAutomatic] }
                  : {}),
              }),
            ]
          : [],
      ) as [z.ZodMiniType, z.ZodMiniType],
    ),
    bodyRequired: false,
    bodyFormats: JSON_OR_YAML,
    responses: {
      200: {
        description:
          'Dry run (validation results) or forceDisable (status disabled, no remote cleanup; its data sources are removed from the service, ADR 0016).',
        schema: z.union([DryRunResponseSchema, AcceptedResponseSchema]),
      },
      202: { description: 'Accepted: status deleting.', schema: AcceptedResponseSchema },
      400: {
        description:
          'Delete payload refused: credentials sent where none are taken, or missing for an automatic integration.',
      },
      404: { description: 'No integration with the id.' },
      409: conflict(
        'Being modified or deleted, already deleted/disabled, or it still has data sources (the message says how many; forceDisable=true removes them).',
      ),
      422: validationFailed,
      502: connectorFailed,
    },
  },
  'GET /integrations/{id}/status': {
    params: IntegrationIdParamsSchema,
    responses: {
      200: { description: 'The id (a number) and status.', schema: IntegrationStatusResponseSchema },
      404: { description: 'No integration with the id.' },
    },
  },
  'POST /integrations/{id}/repair': {
    params: IntegrationIdParamsSchema,
    responses: {
      202: {
        description: 'Accepted: status editing; the repair runs, then a check.',
        schema: AcceptedResponseSchema,
      },
      400: { description: 'The integration was set up manually: run its repair script.' },
      404: { description: 'No integration with the id.' },
      409: conflict('Not in recurringValidationError, in flight, or nothing missing to recreate.'),
    },
  },
} satisfies Record<string, RouteContract>;

/**
 * Dry runs answer 200 with the validation results; accepted asynchronous operations answer 202
 * (a force-disable, which finishes at once, answers 200).
 */
export function operationResult(
  result: { dryRun: true; validationResults: unknown } | { dryRun: false; response: AcceptedResponse },
): ApiResult {
  if (result.dryRun) return { statusCode: 200, body: { validationResults: result.validationResults } };
  return { statusCode: result.response.status === 'disabled' ? 200 : 202, body: result.response };
}
