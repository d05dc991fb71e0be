/** What callers see of a data source (ADR 0016): its stored record without claims or index keys. */
import type { DataSourceView } from './model';
import type { DataSourceItem } from './store';

export function viewOf(
  item: Pick<
    DataSourceItem,
    | 'dataSourceId'
    | 'dataSourceName'
    | 'prefix'
    | 'integrationId'
    | 'createdAt'
    | 'createdBy'
    | 'createdByName'
  >,
): DataSourceView {
  return {
    dataSourceId: item.dataSourceId,
    dataSourceName: item.dataSourceName,
    prefix: item.prefix,
    integrationId: item.integrationId,
    createdAt: item.createdAt,
    createdBy: item.createdBy,
    ...(item.createdByName ? { createdByName: item.createdByName } : {}),
  };
}
