/**
 * Integration hosts pass the address guard (issue 24, finding 7), through the local cloud: a
 * host at the metadata address is refused always, loopback and private hosts because the local
 * stage does not allow them, in every literal form; the message reads the same for each and
 * names the host as configured. (The sandbox checks literal hosts; the real drivers' connect-time
 * check on resolved addresses is tested in test/integration/platforms/drivers.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { type Payload, payloads, uid } from '../../unit/integrations/fixtures';
import { api } from './helpers';

const refusal = (host: string) =>
  `${host} is not an address integrations may connect to (never link-local or metadata addresses; loopback and private addresses only where the stage allows them)`;

describe('integration host address guard', () => {
  it.each(['169.254.169.254', '127.0.0.1', '2130706433', '10.0.0.5', 'localhost'])(
    'a ClusterWarehouse at %s is refused by its connection test',
    async (host) => {
      const payload = payloads(uid()).ClusterWarehouse as Payload;
      payload.config.host = host;
      for (const dryRun of [true, false]) {
        const r = await api('POST', `/integrations${dryRun ? '?dryRun=true' : ''}`, { body: payload });
        expect(r.status, r.text).toBe(422);
        expect(r.body.validationResults.validationTests[0]).toEqual({
          name: 'Initial Validation: Basic Connection Test',
          status: 'failed',
          message: refusal(host),
        });
      }
    },
  );

  it('a Lakehouse workspace URL at the metadata address is refused too', async () => {
    const payload = payloads(uid()).Lakehouse as Payload;
    payload.config.workspaceUrl = 'https://169.254.169.254';
    const r = await api('POST', '/integrations?dryRun=true', { body: payload });
    expect(r.status, r.text).toBe(422);
    expect(r.body.validationResults.validationTests[0]).toMatchObject({
      status: 'failed',
      message: refusal('169.254.169.254'),
    });
  });
});
