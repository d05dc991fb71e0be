/** The periodic checks' schedule: starts a round (see shared/integrations/assurance.ts). */
import { startRound } from '../../shared/integrations/assurance';

export const handler = async () => ({ round: await startRound() });
