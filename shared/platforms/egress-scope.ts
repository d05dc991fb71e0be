/**
 * The async scope of one platform operation under the integration address guard (`./egress.ts`),
 * apart from the guard itself so that failure messages (`./driver.ts`) can ask whether the guard
 * refused a connection without bundling the guard into API functions.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  /** Whether the guard refused a connection of this operation. */
  refused?: boolean;
}

export const egressScopes = new AsyncLocalStorage<Scope>();

/**
 * Whether the guard refused a connection of the current platform operation. (The refused socket
 * host is not kept: drivers that resolve names themselves connect to the address, and a message
 * naming it would map the configured name to an internal address.)
 */
export function refusedInScope(): boolean {
  return egressScopes.getStore()?.refused === true;
}

/**
 * Runs the service's own work from inside a platform operation (recording a step's progress in
 * its table) outside the guard: those connections go to the service's endpoints, not to the
 * integration's hosts.
 */
export function outsideEgressGuard<T>(work: () => T): T {
  return egressScopes.exit(work);
}
