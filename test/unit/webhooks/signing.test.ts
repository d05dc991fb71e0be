import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { isValidSecret, secretProblem, webhookHeaders } from '../../../shared/webhooks/pipeline/signing';

describe('Standard Webhooks signing', () => {
  const body = JSON.stringify({ text: 'hello', metadata: {}, webhookId: 1, webhookName: 'w' });

  it('is accepted by the standardwebhooks verifier for a whsec_ secret', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const headers = webhookHeaders('msg_abc_1', body, secret);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('uses any other secret as its raw UTF-8 bytes', () => {
    const secret = 'plain shared secret ✓';
    const headers = webhookHeaders('msg_abc_2', body, secret);
    expect(new Webhook(Buffer.from(secret, 'utf8').toString('base64')).verify(body, headers)).toEqual(
      JSON.parse(body),
    );
    expect(new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(body, headers)).toEqual(
      JSON.parse(body),
    );
  });

  it('needs {format: "raw"} in the svix and standardwebhooks verifiers for a secret that is not whsec_ (issue 34, item 18)', () => {
    const secret = 'plain shared secret, not whsec_';
    const headers = webhookHeaders('msg_abc_4', body, secret);
    // Without it, both read the string as base64 of a key: another key, or no key at all.
    expect(() => new Webhook(secret).verify(body, headers)).toThrow();
    expect(() => new SvixWebhook(secret).verify(body, headers)).toThrow();
    expect(new Webhook(Buffer.from(secret), { format: 'raw' }).verify(body, headers)).toEqual(
      JSON.parse(body),
    );
    expect(new SvixWebhook(Buffer.from(secret), { format: 'raw' }).verify(body, headers)).toEqual(
      JSON.parse(body),
    );
  });

  it('is rejected when the body, id or secret differ', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const headers = webhookHeaders('msg_abc_3', body, secret);
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'other' })).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(body, headers)).toThrow();
  });

  it('sends id and timestamp but no signature without a secret', () => {
    const headers = webhookHeaders('msg_x_1', body, undefined, new Date(1_700_000_000_000));
    expect(headers).toEqual({ 'webhook-id': 'msg_x_1', 'webhook-timestamp': '1700000000' });
  });

  it('validates whsec_ keys', () => {
    expect(isValidSecret(`whsec_${randomBytes(32).toString('base64')}`)).toBe(true);
    expect(isValidSecret('whsec_not base64!')).toBe(false);
    expect(isValidSecret(`whsec_${randomBytes(4).toString('base64')}`)).toBe(false);
    expect(isValidSecret('anything else ok')).toBe(true);
  });

  it('refuses short secrets: under 16 characters, or whsec_ with under 16 decoded bytes', () => {
    expect(isValidSecret('x')).toBe(false);
    expect(isValidSecret('fifteen chars!!')).toBe(false);
    expect(isValidSecret('sixteen chars!!!')).toBe(true);
    expect(isValidSecret(`whsec_${randomBytes(15).toString('base64')}`)).toBe(false);
    expect(isValidSecret(`whsec_${randomBytes(16).toString('base64')}`)).toBe(true);
    expect(secretProblem('short')).toBe('secret must be at least 16 characters long');
    expect(secretProblem(`whsec_${randomBytes(8).toString('base64')}`)).toMatch(/whsec_.*16 to 64 byte key/);
  });
});
