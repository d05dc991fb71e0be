/** Conditional writes under contention: exactly one winner, everyone else a 409. */
import { describe, expect, it } from 'vitest';
import { deleteBodies, type Payload, payloads } from '../../unit/integrations/fixtures';
import { api, expectSettles } from './helpers';

describe('races', () => {
  it('20 concurrent POSTs for one host: exactly one 2xx, the rest 409', async () => {
    const p = payloads().AnalyticsWarehouse as Payload;
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api('POST', '/integrations', { body: p })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s >= 200 && s < 300)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = responses.find((r) => r.status === 202);
    for (const r of responses.filter((x) => x.status === 409))
      expect(r.body.message).toContain(`integration ${winner?.body.id}`);
    await expectSettles(winner?.body.id, 'enabled');
    const listed = (await api('GET', '/integrations')).body.filter(
      (i: Payload) => i.config?.host === p.config.host,
    );
    expect(listed).toHaveLength(1);
  });

  it('10 concurrent PUT/DELETE on one id: exactly one accepted, the rest 409', async () => {
    const p = payloads().AnalyticsWarehouse as Payload;
    const created = await api('POST', '/integrations', { body: p });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    await expectSettles(id, 'enabled');
    const requests = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? api('PUT', `/integrations/${id}`, {
            body: { ...p, config: { ...p.config, connectArgs: `timeout=${i}` } },
          })
        : api('DELETE', `/integrations/${id}`, { body: deleteBodies().AnalyticsWarehouse }),
    );
    const responses = await Promise.all(requests);
    const accepted = responses.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(9);
    const final = await (accepted[0]?.body.status === 'editing'
      ? expectSettles(id, 'enabled')
      : expectSettles(id, 'deleted'));
    expect(final).toBeUndefined();
  });
});
