/** Scheduled: moves integrations stuck in flight to their error status (see shared/integrations/reconcile.ts). */
import { reconcileIntegrations } from '../../shared/integrations/reconcile';

export const handler = async () => reconcileIntegrations();
