/**
 * `integrations check <id>`: runs the periodic check of one integration now (a check message on
 * the `integrationChecks` queue, as the schedule would send) and prints its result when it has
 * been recorded.
 */
export class IntegrationsUsageError extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function integrationsCommand(argv: string[]): Promise<unknown> {
  const [sub, idText] = argv;
  if (sub !== 'check') throw new IntegrationsUsageError(`unknown integrations command "${sub ?? ''}"`);
  const id = Number(idText);
  if (!Number.isInteger(id) || id <= 0)
    throw new IntegrationsUsageError('integrations check needs an integration id');
  const [{ requestCheck }, { getIntegration }] = await Promise.all([
    import('../../shared/integrations/assurance/rounds'),
    import('../../shared/integrations/store/integrations'),
  ]);
  const before = await getIntegration(id);
  if (!before) throw new Error(`integration ${id} not found`);
  const round = await requestCheck(id);
  // The check is recorded with its round (a check of an integration in flight is skipped), and
  // done once the health notification it decided on has been sent.
  for (let waited = 0; ; waited += 250) {
    const record = await getIntegration(id);
    if (record?.lastCheckRound === round && !record.pendingHealthNotice)
      return {
        id,
        status: record.status,
        lastCheckedAt: record.lastCheckedAt,
        findings: record.findings ?? [],
        validationResults: record.validationResults,
      };
    if (waited > 120_000)
      throw new Error(`integration ${id} was not checked within 120 s (status ${record?.status})`);
    await sleep(250);
  }
}
