/**
 * Which connector serves a type: the sandbox when PLATFORM_MODE is `sandbox` (the local stage),
 * the deployed drivers otherwise. A SQL type's connector is the generic SQL connector over its
 * folder's `driver.ts` (or the sandbox's SQL driver); any other type's folder brings its own
 * (`driver.ts` exports `connector()`, `sandbox.ts` exports `connector`). Files are found by the
 * folder convention (`./module.ts`) and loaded with dynamic imports, so only the functions that
 * import this file bundle drivers, and a function loads only the driver of the type it serves.
 *
 * Sandbox triggers (documented in docs/platforms.md):
 * - host or workspace hostname ending in `.unreachable.example` → Basic Connection Test fails;
 * - any credential value `invalid-credentials` → Basic Connection Test fails (authentication);
 * - any credential value `fail-bootstrap` → bootstrap / applyEdit fail half-way (and are undone);
 * - any credential value `fail-compensation` → bootstrap / applyEdit fail half-way, and undoing
 *   them fails half-way too (the leftovers are recorded; the cleanup script removes them);
 * - privileged delete credentials with password or secret `fail-teardown` → teardown fails half-way.
 */
import { platformMode } from '../config/env';
import { type RemoteType, remoteOf, type SqlType } from '.';
import type { PlatformDriver } from './driver';
import { folderOf } from './module';
import type { PlatformConnector } from './port';
import { credentialValues, fireOnce, sandboxDriver, TRIGGER } from './sandbox/sql-driver';
import { sqlConnector } from './sql-connector';

/** A type's folder file, by the convention (`driver.ts` or `sandbox.ts`). */
async function load<T>(type: RemoteType, file: 'driver' | 'sandbox'): Promise<T> {
  const folder = folderOf(type);
  return (
    file === 'driver' ? await import(`./${folder}/driver.ts`) : await import(`./${folder}/sandbox.ts`)
  ) as T;
}

/** The deployed connector of a type. */
export async function realConnector(type: RemoteType): Promise<PlatformConnector> {
  if (remoteOf(type)?.connector === 'sql')
    return sqlConnector(type as SqlType, (await load<{ driver: PlatformDriver }>(type, 'driver')).driver);
  return (await load<{ connector(): PlatformConnector }>(type, 'driver')).connector();
}

/** The sandbox connector of a type (SQL types: the sandbox's SQL driver with its triggers). */
export async function sandboxConnector(type: RemoteType): Promise<PlatformConnector> {
  if (remoteOf(type)?.connector !== 'sql')
    return (await load<{ connector: PlatformConnector }>(type, 'sandbox')).connector;
  return sqlConnector(type as SqlType, sandboxDriver(type as SqlType), {
    async failAfter(operation, target, total) {
      // Teardown connects with the privileged delete credentials, the others with the config's.
      const values = credentialValues(target.credentials);
      const triggers = {
        bootstrap: [TRIGGER.failBootstrap, TRIGGER.failCompensation],
        edit: [TRIGGER.failBootstrap, TRIGGER.failCompensation],
        compensate: [TRIGGER.failCompensation],
        teardown: [TRIGGER.failTeardown],
      }[operation];
      const trigger = triggers.find((t) => values.includes(t));
      if (trigger === undefined) return undefined;
      // A teardown fails once per host: the retry (a DELETE sent again) runs, whatever credentials
      // the type's DELETE takes (a Lakehouse tears down with its own, unchanged token).
      if (trigger === TRIGGER.failTeardown && !(await fireOnce(type as SqlType, target.host, trigger)))
        return undefined;
      return { index: Math.floor(total / 2), trigger };
    },
  });
}

export async function connectorFor(type: RemoteType): Promise<PlatformConnector> {
  return platformMode() === 'sandbox' ? sandboxConnector(type) : realConnector(type);
}
