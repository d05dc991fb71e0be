/** Reading integrations: every one, one, or one's status (secrets redacted by the presenter). */

import { loadIntegration } from './accept';
import type { IntegrationResponse, IntegrationStatusResponse } from './api';
import { presentIntegration, presentStatus } from './presenter';
import { listIntegrations } from './repository';

export async function listAll(): Promise<IntegrationResponse[]> {
  return Promise.all((await listIntegrations()).map(presentIntegration));
}

export async function getOne(id: number): Promise<IntegrationResponse> {
  return presentIntegration(await loadIntegration(id));
}

export async function getStatus(id: number): Promise<IntegrationStatusResponse> {
  return presentStatus(await loadIntegration(id));
}
