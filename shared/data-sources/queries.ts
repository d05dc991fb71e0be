/** GET /data-sources and GET /data-sources/{id} (ADR 0016). */
import { NotFoundError } from '../errors';
import {
  type DataSourceListQuery,
  type DataSourcePage,
  type DataSourceView,
  DEFAULT_PAGE_SIZE,
  encodePageToken,
} from './model';
import { getDataSource, listDataSources } from './store';
import { viewOf } from './view';

export async function getDataSourceView(id: number): Promise<DataSourceView> {
  const item = await getDataSource(id);
  if (!item) throw new NotFoundError(`data source ${id} not found`);
  return viewOf(item);
}

/** One page in id order: all data sources, or one integration's; a page past the last is empty. */
export async function listDataSourcePage(query: DataSourceListQuery): Promise<DataSourcePage> {
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const items = await listDataSources({
    ...(query.integrationId !== undefined ? { integrationId: query.integrationId } : {}),
    ...(query.nextToken !== undefined ? { after: query.nextToken } : {}),
    limit: pageSize + 1,
  });
  const page = items.slice(0, pageSize);
  const last = page.at(-1);
  return {
    dataSources: page.map(viewOf),
    ...(items.length > pageSize && last ? { nextToken: encodePageToken(last.dataSourceId) } : {}),
  };
}
