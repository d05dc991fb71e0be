/**
 * POST /integrations/{id}/repair: an automatic integration whose periodic check found setup steps
 * missing gets them re-run through the lifecycle workflow (status `editing` while it runs), then
 * checked again: `enabled` when the check passes, else back to `recurringValidationError`.
 * Privilege creep and a failed connection are reported, never repaired.
 */
import { ConflictError, InvalidInputError } from '../../errors';
import { missingStepsOf } from '../model';
import { type Accepted, acceptOperation, lostRace, moveInFlight, refuse } from './operation';
import { loadIntegration } from './queries';

export async function repairIntegration(id: number): Promise<Accepted> {
  const record = await loadIntegration(id);
  refuse(record, 'repair');
  if (!record.autoBootstrap)
    throw new InvalidInputError(
      `integration ${id} was set up manually: run the script of POST /integrations/${id}/scripts/repair, then wait for the next check`,
    );
  if (missingStepsOf(record).length === 0)
    throw new ConflictError(
      `the last check of integration ${id} found nothing to recreate (${record.statusMessage ?? 'no missing object'}); a failed connection or privilege creep is not repaired`,
      { status: record.status },
    );
  const accepted = await acceptOperation({
    operation: 'repair',
    dryRun: false,
    validation: undefined,
    secrets: [],
    beforeFailing: async () => undefined,
    write: (move) => moveInFlight(record, move),
    lost: () => lostRace(id, 'repair'),
  });
  if (accepted.dryRun) throw new Error('a repair has no dry run');
  return {
    dryRun: false,
    response: { id: String(id), status: 'editing', validationResults: accepted.validationResults },
  };
}
