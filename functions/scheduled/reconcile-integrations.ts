/** Scheduled: moves integrations stuck in flight to their error status (see shared/integrations/workflow/reconcile.ts). */
import { reconcileIntegrations } from '../../shared/integrations/workflow/reconcile';

export const handler = async () => reconcileIntegrations();
