import { apiHandler } from '../../shared/edge/handler';
import { previewFilter } from '../../shared/webhooks/api/filter-preview';
import { filterPreviewContracts } from '../../shared/webhooks/api/filter-preview-contract';

export const handler = apiHandler(
  filterPreviewContracts['POST /webhooks/filters/preview'],
  async ({ principal, body }) => ({ body: await previewFilter(principal, body) }),
);
