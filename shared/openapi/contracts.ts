/**
 * Every route's contract, by route key, for the OpenAPI document and the tests. Every route in
 * the route table has exactly one entry (a test enforces it), and every route's handler
 * validates against that very object (another test checks the identity).
 */
import type { RouteContract } from '../catalog/contract';
import type { RouteKey } from '../catalog/routes';
import { dataSourceContracts } from '../data-sources/contracts';
import { integrationContracts } from '../integrations/api/contracts';
import { regenerateContracts } from '../integrations/api/regenerate-contract';
import { scriptContracts } from '../integrations/api/script-contracts';
import { notificationContracts } from '../notifications/contracts';
import { serviceContracts } from '../service/contracts';
import { awsTrustContracts } from '../webhooks/api/aws-trust-contract';
import { webhookContracts } from '../webhooks/api/contracts';
import { filterPreviewContracts } from '../webhooks/api/filter-preview-contract';
import { historyContracts } from '../webhooks/api/history-contract';
import { orderingKeyContracts } from '../webhooks/api/ordering-keys-contract';

/** Each capability declares its own record in its `api.ts`; they are only gathered here. */
export const contracts: Record<RouteKey, RouteContract> = {
  ...serviceContracts,
  ...integrationContracts,
  ...regenerateContracts,
  ...scriptContracts,
  ...dataSourceContracts,
  ...notificationContracts,
  ...webhookContracts,
  ...filterPreviewContracts,
  ...awsTrustContracts,
  ...historyContracts,
  ...orderingKeyContracts,
};
