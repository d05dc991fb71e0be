/**
 * The deployed connectors: a SQL type's driver under the generic SQL connector, any other type's
 * own connector; each loads only its own driver module (and so its own dependency).
 */
import { type RemoteType, remoteOf } from '.';
import type { PlatformConnector } from './port';
import type { SqlType } from './scripts';
import { sqlConnector } from './sql-connector';

export async function realConnector(type: RemoteType): Promise<PlatformConnector> {
  const remote = remoteOf(type);
  if (remote?.sql) return sqlConnector(type as SqlType, await remote.sql.loadDriver());
  if (!remote?.loadConnector) throw new Error(`${type} has no connector`);
  return remote.loadConnector();
}
