/**
 * Error messages say what to fix (issue 14 §2), through the real gateway: every route that
 * requires a body says so when it gets none, parse errors give the line and column, a webhook
 * URL with another scheme says it must be http or https, and an unknown notification type is
 * named with where the valid ones are listed.
 */
import { describe, expect, it } from 'vitest';
import { routeKey, routes } from '../../../shared/catalog/routes';
import { contracts } from '../../../shared/openapi/contracts';
import { call } from '../../support/api';

const webhook = {
  name: 'messages',
  url: 'https://receiver.example/hook',
  global: false,
  notificationType: ['userCreated'],
  actionType: 'triggered',
};

describe('error messages that say what to fix', () => {
  it('every route that requires a body says a body is required when it gets none', async () => {
    const bodyRoutes = routes.filter((r) => {
      const contract = contracts[routeKey(r)];
      return contract?.body !== undefined && contract.bodyRequired !== false;
    });
    expect(bodyRoutes.length).toBeGreaterThan(5);
    for (const route of bodyRoutes) {
      const res = await call(route.method, route.path.replace('{id}', '1'));
      expect(res.status, routeKey(route)).toBe(400);
      expect(res.body.message, routeKey(route)).toBe('a request body is required');
    }
  });

  it('JSON and YAML parse errors give the line and column', async () => {
    const json = await call('POST', '/integrations', { raw: '{\n  "type": "ObjectStore",\n  oops\n}' });
    expect(json.status).toBe(400);
    expect(json.body.message).toMatch(/line 3, column \d+/);
    const yaml = await call('POST', '/integrations', {
      raw: 'type: ObjectStore\nconfig:\n  bucket: [unclosed\n',
      contentType: 'application/yaml',
    });
    expect(yaml.status).toBe(400);
    expect(yaml.body.message).toMatch(/line \d+, column \d+/);
  });

  it('a webhook URL with another scheme says it must be http or https', async () => {
    const res = await call('POST', '/webhooks', {
      body: { webhooks: [{ ...webhook, url: 'ftp://files.example/x' }] },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain('the URL scheme must be http or https');
  });

  it('an unknown notification type is named and points to GET /webhooks/actions', async () => {
    const res = await call('POST', '/webhooks', {
      body: { webhooks: [{ ...webhook, notificationType: ['userCreatd'] }] },
    });
    expect(res.status).toBe(422);
    const errors = JSON.stringify(res.body.errors);
    expect(errors).toContain(
      'unknown notification type \\"userCreatd\\"; GET /webhooks/actions lists the valid ones',
    );
    expect(errors).not.toContain('modelCreated');
    const history = await call('GET', '/webhooks/history?notificationType=bogus');
    expect(history.status).toBe(400);
    expect(history.body.message).toContain('unknown notification type "bogus"; GET /webhooks/actions');
  });
});
