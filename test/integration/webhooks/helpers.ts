import { call, eventually, useLocalCloudEnv } from '../../support/api';

export async function createHooks(key: string, webhooks: Record<string, unknown>[]): Promise<number[]> {
  const created = await call('POST', '/webhooks', { key, body: { webhooks } });
  if (created.status !== 201 || created.body.errors.length > 0) {
    throw new Error(`webhooks not created: ${created.text}`);
  }
  return created.body.createdWebhooks.map((w: { id: number }) => w.id);
}

export async function publish(input: {
  notificationType: string;
  text: string;
  metadata?: Record<string, unknown>;
  recipients?: number[];
  id?: string;
}) {
  useLocalCloudEnv();
  const { publishNotification } = await import('../../../shared/notifications/publisher');
  return publishNotification(input as Parameters<typeof publishNotification>[0]);
}

// biome-ignore lint/suspicious/noExplicitAny: history records are asserted field by field
export type AnyRecord = Record<string, any>;

/** Every history record the key's owner sees (all pages). */
export async function allHistory(key: string, query = ''): Promise<AnyRecord[]> {
  const records: AnyRecord[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call('GET', `/webhooks/history?pageSize=100&offset=${offset}${query}`, { key });
    if (page.status !== 200) throw new Error(`history: ${page.text}`);
    records.push(...page.body.records);
    if (page.body.records.length < 100) return records;
  }
}

export async function historyFor(key: string, webhookId: number, atLeast: number, ms = 15_000) {
  return eventually(
    async () => (await allHistory(key)).filter((r) => r.webhooksId === webhookId),
    (records) => records.length >= atLeast,
    ms,
  );
}
