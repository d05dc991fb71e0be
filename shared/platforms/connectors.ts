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
 * - any credential value `fail-bootstrap` → bootstrap / applyEdit fail half-way;
 * - privileged delete credentials with password or secret `fail-teardown` → teardown fails half-way.
 */
import { platformMode } from '../config/env';
import { type RemoteType, remoteOf, type SqlType } from '.';
import type { PlatformDriver } from './driver';
import { folderOf } from './module';
import type { PlatformConnector } from './port';
import { credentialValues, sandboxDriver, TRIGGER } from './sandbox/sql-driver';
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
    failAfter(operation, target, total) {
      // Teardown connects with the privileged delete credentials, bootstrap/edit with the config's.
      const trigger = operation === 'teardown' ? TRIGGER.failTeardown : TRIGGER.failBootstrap;
      return credentialValues(target.credentials).includes(trigger) ? Math.floor(total / 2) : undefined;
    },
  });
}

export async function connectorFor(type: RemoteType): Promise<PlatformConnector> {
  return platformMode() === 'sandbox' ? sandboxConnector(type) : realConnector(type);
}
