import { publishDataSourceNotices } from '../../shared/data-sources/notices';

/** The dataSources stream's consumer: modelCreated / modelDeleted (ADR 0016; partial batch responses). */
export const handler = publishDataSourceNotices;
