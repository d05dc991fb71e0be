/** Reading integrations: every one, one, or one's status (secrets redacted by the presenter). */
import { NotFoundError } from '../../errors';
import type { IntegrationRecord } from '../model';
import { getIntegration, listIntegrations } from '../store/integrations';
import type { IntegrationResponse, IntegrationStatusResponse } from './contracts';
import { presentIntegration, presentStatus } from './presenter';

export async function listAll(): Promise<IntegrationResponse[]> {
  return Promise.all((await listIntegrations()).map(presentIntegration));
}

export async function getOne(id: number): Promise<IntegrationResponse> {
  return presentIntegration(await loadIntegration(id));
}

export async function getStatus(id: number): Promise<IntegrationStatusResponse> {
  return presentStatus(await loadIntegration(id));
}

/** The integration, or the 404 every route of one integration answers. */
export async function loadIntegration(id: number): Promise<IntegrationRecord> {
  const record = await getIntegration(id);
  if (!record) throw new NotFoundError(`integration ${id} not found`);
  return record;
}
