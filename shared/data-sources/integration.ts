/**
 * What data sources use of the integrations capability, in one place (ADR 0016): the rest of
 * this folder imports integrations only through this file, so a move inside integrations is one
 * edit here. Integrations never import data sources (the capability folders form no cycle).
 */

export { deleteIntegration } from '../integrations/api/delete';
export { loadIntegration } from '../integrations/api/queries';
export type { AssuranceExtension } from '../integrations/assurance/check';
export { type IntegrationRecord, payloadOf } from '../integrations/model';
export { integrationOwner } from '../integrations/secrets';
