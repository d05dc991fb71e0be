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
 * - a host that is a literal address (or `localhost`) the address guard refuses → Basic
 *   Connection Test fails as a refused host, as the real drivers' connect-time guard does;
 * - any credential value `invalid-credentials` → Basic Connection Test fails (authentication);
 * - any credential value `fail-bootstrap` → bootstrap / applyEdit fail half-way (and are undone);
 * - any credential value `fail-compensation` → bootstrap / applyEdit fail half-way, and undoing
 *   them fails half-way too (the leftovers are recorded; the cleanup script removes them);
 * - privileged delete credentials with password or secret `fail-teardown` → teardown fails half-way.
 */
import { platformMode } from '../config/env';
import { type RemoteType, remoteOf, type SqlType } from '.';
import type { PlatformDriver } from './driver';
import { guardEgress } from './egress';
import { outsideEgressGuard } from './egress-scope';
import { folderOf } from './module';
import type { PlatformConnector, StepProgress } from './port';
import { credentialValues, fireOnce, sandboxDriver, TRIGGER } from './sandbox/sql-driver';
import { sqlConnector } from './sql/connector';

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

/**
 * A request whose step recorder (the service's own write to its table, called from inside the
 * operation) runs outside the guard: its connections go to the service's endpoints.
 */
function withServiceCallbacks(request: unknown): unknown {
  const progress = (request as { progress?: StepProgress } | undefined)?.progress;
  if (!progress) return request;
  const record: StepProgress['record'] = (...steps) => outsideEgressGuard(() => progress.record(...steps));
  return { ...(request as object), progress: { ...progress, record } };
}

/** A connector whose every operation runs under the integration address guard (`./egress.ts`). */
function guarded(connector: PlatformConnector): PlatformConnector {
  return new Proxy(connector, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (...args: unknown[]) => guardEgress(() => value.apply(target, args.map(withServiceCallbacks)))
        : value;
    },
  });
}

export async function connectorFor(type: RemoteType): Promise<PlatformConnector> {
  return guarded(platformMode() === 'sandbox' ? await sandboxConnector(type) : await realConnector(type));
}
