/**
 * The real connectors, each loading only its own driver module (and so its own dependency).
 */
import type { PlatformConnector } from './port';
import type { RemoteType } from './registry';
import { sqlConnector } from './sql-connector';

export async function realConnector(type: RemoteType): Promise<PlatformConnector> {
  switch (type) {
    case 'ClusterWarehouse':
      return sqlConnector(type, (await import('./cluster-warehouse/driver')).clusterDriver);
    case 'CloudWarehouse':
      return sqlConnector(type, (await import('./cloud-warehouse/driver')).cloudDriver);
    case 'AnalyticsWarehouse':
      return sqlConnector(type, (await import('./analytics-warehouse/driver')).analyticsDriver);
    case 'Lakehouse':
      return sqlConnector(type, (await import('./lakehouse/driver')).lakehouseDriver);
    case 'DatasetWarehouse':
      return (await import('./dataset-warehouse/driver')).datasetWarehouseConnector();
    case 'ObjectStore':
      return (await import('./object-store/driver')).objectStoreConnector();
  }
}
