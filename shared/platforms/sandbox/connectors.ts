/**
 * Sandbox connectors: SQL types use the shared SQL connector over the sandbox driver; other
 * types bring their own sandbox connector (`loadSandbox` in `../runtime`), which keeps its few
 * remote facts in the same per-host state.
 *
 * Triggers (documented in docs/platforms.md):
 * - host or workspace hostname ending in `.unreachable.example` → Basic Connection Test fails;
 * - any credential value `invalid-credentials` → Basic Connection Test fails (authentication);
 * - any credential value `fail-bootstrap` → bootstrap / applyEdit fail half-way;
 * - privileged delete credentials with password or secret `fail-teardown` → teardown fails half-way.
 */

import type { RemoteType } from '..';
import type { PlatformConnector } from '../port';
import { runtimeOf } from '../runtime';
import type { SqlType } from '../scripts';
import { sqlConnector } from '../sql-connector';
import { credentialValues, sandboxDriver, TRIGGER } from './driver';

function sqlSandbox(type: SqlType): PlatformConnector {
  return sqlConnector(type, sandboxDriver(type), {
    failAfter(operation, target, total) {
      // Teardown connects with the privileged delete credentials, bootstrap/edit with the config's.
      const trigger = operation === 'teardown' ? TRIGGER.failTeardown : TRIGGER.failBootstrap;
      return credentialValues(target.credentials).includes(trigger) ? Math.floor(total / 2) : undefined;
    },
  });
}
export async function sandboxConnector(type: RemoteType): Promise<PlatformConnector> {
  const runtime = runtimeOf(type);
  if ('loadSandbox' in runtime) return runtime.loadSandbox();
  return sqlSandbox(type as SqlType);
}
