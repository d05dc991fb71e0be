/**
 * Issue 24, finding 9 (webhook entries): a URL with empty userinfo (`https://:@host/`) passed
 * the credentials check, and names took NUL, CR/LF and bidirectional controls. Each such entry
 * is now refused, naming why, and nothing is created.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { baseUrl, createKey } from '../support/api';
import { request } from './support';

const entry = (over: Record<string, unknown>) => ({
  name: 'finding 9',
  url: `https://hooks.example.com/${randomUUID()}`,
  global: false,
  notificationType: ['modelAccessRequested'],
  actionType: 'triggered',
  ...over,
});

describe('webhook entries the create route refuses', () => {
  it('refuses URLs with userinfo, the empty forms included', async () => {
    const user = await createKey(`userinfo-${randomUUID().slice(0, 8)}`);
    const urls = [
      'https://:@hooks.example.com/in',
      'https://@hooks.example.com/in',
      'https://a:@hooks.example.com/in',
    ];
    const reply = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: { webhooks: urls.map((url) => entry({ url })) },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toEqual(
      urls.map((url, index) =>
        expect.objectContaining({ index, url, message: 'url must not contain credentials' }),
      ),
    );
    expect((await request(baseUrl(), 'GET', '/webhooks', { key: user.apiKey })).body).toEqual([]);
  });

  it('refuses names with control or bidirectional characters', async () => {
    const user = await createKey(`names-${randomUUID().slice(0, 8)}`);
    const names = ['nul\u0000', 'carriage\rreturn', 'line\nfeed', 'override\u202Etxt.exe', 'isolate\u2067x'];
    const reply = await request(baseUrl(), 'POST', '/webhooks', {
      key: user.apiKey,
      body: { webhooks: names.map((name) => entry({ name })) },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toHaveLength(names.length);
    for (const [index, error] of (reply.body.errors as { index: number; message: string }[]).entries()) {
      expect(error.index).toBe(index);
      expect(error.message).toMatch(/^name: must not contain control characters/);
    }
    expect((await request(baseUrl(), 'GET', '/webhooks', { key: user.apiKey })).body).toEqual([]);
  });
});
