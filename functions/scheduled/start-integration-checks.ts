/** The periodic checks' schedule: starts a round (see shared/integrations/assurance/). */
import { startRound } from '../../shared/integrations/assurance/rounds';

export const handler = async () => ({ round: await startRound() });
