import { countHistoryRecords } from '../../shared/webhooks/pipeline/history-counts';

/** The deliveryHistory stream's consumer: keeps the history counters (partial batch responses). */
export const handler = countHistoryRecords;
