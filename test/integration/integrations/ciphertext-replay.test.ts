/**
 * A value a caller sends is never opened as ciphertext (issue 24, finding 3): a secret copied
 * from the store (`enc:v2:…`, sealed for another integration) is an ordinary string, so it cannot
 * hand that integration's password to another host. Host B below knows the account of
 * integration A with A's real password: a dry run with the real password passes there, one with
 * A's stored ciphertext fails authentication (the ciphertext itself reached the sandbox, never
 * the password). POST, PUT and dry runs alike; malformed `enc:` values are a 422, never a 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen, store } from './helpers';

const sentSecrets: string[] = [];
afterAll(() => expectNoSecretsIn(seen, sentSecrets));

/** A manual ClusterWarehouse payload (the sandbox authenticates the account it was set up with). */
function manual(host: string, from = payloads(uid()).ClusterWarehouse as Payload): Payload {
  const payload = structuredClone(from);
  payload.autoBootstrap = false;
  payload.config.host = host;
  return payload;
}

const post = (body: Payload, dryRun: boolean) =>
  api('POST', `/integrations${dryRun ? '?dryRun=true' : ''}`, { body });
const put = (id: string, body: Payload, dryRun: boolean) =>
  api('PUT', `/integrations/${id}${dryRun ? '?dryRun=true' : ''}`, { body });
const connectionTest = (body: { validationResults?: { validationTests: { name: string }[] } }) =>
  body.validationResults?.validationTests[0];

describe('ciphertext sent by a caller', () => {
  it('is an ordinary string: a copied ciphertext never opens on another host (POST, PUT, dry run)', async () => {
    const a = manual(`replay-a-${uid()}.example.com`);
    sentSecrets.push(...secretValues(a));
    await runManualSetup(a);
    const created = await post(a, false);
    expect(created.status, created.text).toBe(202);
    await expectSettles(created.body.id, 'enabled');
    const stored = (await (await store()).get(Number(created.body.id))) as { config: Payload['config'] };
    const ciphertext = String(stored.config.password);
    expect(ciphertext).toMatch(/^enc:v2:/);

    // Host B knows A's account with A's real password.
    const b = manual(`replay-b-${uid()}.example.com`, a);
    await runManualSetup(b);
    const control = await post(b, true);
    expect(control.status, control.text).toBe(200);
    expect(connectionTest(control.body)).toMatchObject({ status: 'passed' });

    const replayed = { ...b, config: { ...b.config, password: ciphertext } };
    for (const dryRun of [true, false]) {
      const r = await post(replayed, dryRun);
      expect(r.status, r.text).toBe(422);
      expect(connectionTest(r.body)).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('authentication'),
      });
    }
    // A copied username ciphertext is no valid user name at all.
    const bothCopied = { ...replayed, config: { ...replayed.config, username: stored.config.username } };
    const both = await post(bothCopied, true);
    expect(both.status, both.text).toBe(400);
    expect(both.body.message).toContain('config.username');

    // An integration on B, then a PUT that sends A's ciphertext as its password: refused alike.
    const onB = await post(b, false);
    expect(onB.status, onB.text).toBe(202);
    await expectSettles(onB.body.id, 'enabled');
    for (const dryRun of [true, false]) {
      const r = await put(onB.body.id, replayed, dryRun);
      expect(r.status, r.text).toBe(422);
      expect(connectionTest(r.body)).toMatchObject({ status: 'failed' });
    }
    // A's own stored ciphertext sent back to A is no placeholder either.
    expect(
      (await put(created.body.id, { ...a, config: { ...a.config, password: ciphertext } }, true)).status,
    ).toBe(422);
    // B still works with its own stored secret (the placeholder).
    const kept = await put(onB.body.id, { ...b, config: { ...b.config, password: '[REDACTED]' } }, true);
    expect(kept.status, kept.text).toBe(200);
  });

  it('malformed enc: values are ordinary strings too: a failed validation, never a 500', async () => {
    const host = `replay-m-${uid()}.example.com`;
    const payload = manual(host);
    sentSecrets.push(...secretValues(payload));
    await runManualSetup(payload);
    for (const bad of ['enc:v1:%%%:%%%', 'enc:v1:', 'enc:v2:AAAA:AAAA', 'enc:v1:a:b:c']) {
      const r = await post({ ...payload, config: { ...payload.config, password: bad } }, true);
      expect(r.status, `${bad}: ${r.text}`).toBe(422);
      expect(connectionTest(r.body)).toMatchObject({ status: 'failed' });
    }
  });
});
