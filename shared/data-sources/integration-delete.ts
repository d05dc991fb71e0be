/**
 * DELETE /integrations/{id} with its data sources (ADR 0016). The integration's own use case
 * refuses a delete while data sources remain (409 saying how many); with `forceDisable=true` it
 * disables the integration, and this use case then removes the data sources from the service,
 * each as DELETE /data-sources/{id} does (each publishes modelDeleted). They are listed after the
 * disable, so none can be added behind it (registering needs `enabled`). A force-disable that died
 * half-way is finished by the same request again: on a disabled integration that still counts data
 * sources it removes the rest (200, status disabled) instead of the integration's 409.
 */
import { summarize } from '../platforms/port';
import { sleep } from '../store/read';
import { removeAllOf } from './delete';
import { deleteIntegration, loadIntegration } from './integration';
import type { Caller } from './store';

type Options = Parameters<typeof deleteIntegration>[2];

/** Rounds of removal while the integration still counts data sources (its index lags its writes). */
const ROUNDS = 5;

async function removeAll(id: number, caller: Caller): Promise<void> {
  for (let round = 1; ; round++) {
    await removeAllOf(id, caller);
    const left = (await loadIntegration(id)).dataSourceCount ?? 0;
    if (left <= 0 || round >= ROUNDS) return;
    await sleep(100 * round);
  }
}

export async function deleteIntegrationWithDataSources(
  caller: Caller,
  id: number,
  body: Parameters<typeof deleteIntegration>[1],
  options: Options,
): ReturnType<typeof deleteIntegration> {
  if (!options.forceDisable || options.dryRun) return deleteIntegration(id, body, options);
  const before = await loadIntegration(id);
  if (before.status === 'disabled' && (before.dataSourceCount ?? 0) > 0) {
    await removeAll(id, caller);
    return {
      dryRun: false,
      response: { id: String(id), status: 'disabled', validationResults: summarize([]) },
    };
  }
  const result = await deleteIntegration(id, body, options);
  if (((await loadIntegration(id)).dataSourceCount ?? 0) > 0) await removeAll(id, caller);
  return result;
}
