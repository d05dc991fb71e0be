/**
 * How each remote type's connectors load: the one place that names driver modules. Only the
 * connector selection (`./real`, `./sandbox/connectors`, reached from `./registry`) imports this
 * map; the platform modules and their registry (`.`), which API handlers import, never name a
 * driver, so no database driver is bundled into an API function. Every loader is a dynamic
 * import: a function loads only the driver of the type it serves.
 */
import type { RemoteType } from '.';
import type { PlatformDriver } from './driver';
import type { PlatformConnector } from './port';
import type { SqlType } from './scripts';

/** A SQL type: its deployed driver (the generic SQL connector runs it; the sandbox has its own driver). */
export interface SqlRuntime {
  loadDriver(): Promise<PlatformDriver>;
}

/** Any other remote type: its own deployed and sandbox connectors. */
export interface ConnectorRuntime {
  loadConnector(): Promise<PlatformConnector>;
  loadSandbox(): Promise<PlatformConnector>;
}

export type PlatformRuntime = SqlRuntime | ConnectorRuntime;

export const RUNTIME: { readonly [T in RemoteType]: T extends SqlType ? SqlRuntime : ConnectorRuntime } = {
  ObjectStore: {
    loadConnector: async () => (await import('./object-store/driver')).objectStoreConnector(),
    loadSandbox: async () => (await import('./object-store/sandbox')).objectStoreSandbox,
  },
  AnalyticsWarehouse: {
    loadDriver: async () => (await import('./analytics-warehouse/driver')).analyticsDriver,
  },
  Lakehouse: { loadDriver: async () => (await import('./lakehouse/driver')).lakehouseDriver },
  DatasetWarehouse: {
    loadConnector: async () => (await import('./dataset-warehouse/driver')).datasetWarehouseConnector(),
    loadSandbox: async () => (await import('./dataset-warehouse/sandbox')).datasetWarehouseSandbox,
  },
  ClusterWarehouse: { loadDriver: async () => (await import('./cluster-warehouse/driver')).clusterDriver },
  CloudWarehouse: { loadDriver: async () => (await import('./cloud-warehouse/driver')).cloudDriver },
};

/** The runtime of a remote type. */
export function runtimeOf(type: RemoteType): PlatformRuntime {
  return RUNTIME[type];
}
