/**
 * The deployed connectors: a SQL type's driver under the generic SQL connector, any other type's
 * own connector; each loads only its own driver module (and so its own dependency).
 */
import type { RemoteType } from '.';
import type { PlatformConnector } from './port';
import { runtimeOf } from './runtime';
import type { SqlType } from './scripts';
import { sqlConnector } from './sql-connector';

export async function realConnector(type: RemoteType): Promise<PlatformConnector> {
  const runtime = runtimeOf(type);
  if ('loadDriver' in runtime) return sqlConnector(type as SqlType, await runtime.loadDriver());
  return runtime.loadConnector();
}
