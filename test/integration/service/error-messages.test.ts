/**
 * Error messages say what to fix (issue 14 §2, issue 25), through the real gateway: every route
 * that requires a body says so when it gets none, parse errors give the line and column (YAML's
 * in words), a missing field says "required", a webhook URL with another scheme says it must be
 * http or https and a missing one that it is required, a page size names its range, a bad id is
 * said once, and an unknown notification type is named with where the valid ones are listed.
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
      'unknown notification type \\"userCreatd\\" (did you mean userCreated?); GET /webhooks/actions lists the valid ones',
    );
    expect(errors).not.toContain('modelCreated');
    const history = await call('GET', '/webhooks/history?notificationType=bogus');
    expect(history.status).toBe(400);
    expect(history.body.message).toContain('unknown notification type "bogus"; GET /webhooks/actions');
  });

  it('a missing field says "required", not the parser\'s "expected string, received undefined"', async () => {
    const res = await call('POST', '/integrations?dryRun=true', {
      body: { type: 'ClusterWarehouse', autoBootstrap: false, config: { database: 'db' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'invalid request body: config.authenticationType: required (one of userPassword, accessKey, idp)',
    );
    const noHost = await call('POST', '/integrations?dryRun=true', {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { database: 'db', authenticationType: 'userPassword', username: 'u', password: 'p' },
      },
    });
    expect(noHost.status).toBe(400);
    expect(noHost.body.message).toContain('config.host: required');
    expect(noHost.body.message).not.toContain('received undefined');
    const webhook = await call('POST', '/webhooks', {
      body: {
        webhooks: [
          { name: 'no url', global: false, notificationType: ['userCreated'], actionType: 'triggered' },
        ],
      },
    });
    expect(webhook.status).toBe(422);
    // A webhook delivers to a URL or to an AWS destination (issue 40): the message names both.
    expect(webhook.body.errors[0].message).toBe('url: required (or a destination instead)');
  });

  it('a page size out of range names the range; a bad id is said once', async () => {
    for (const size of ['0', '101', 'ten']) {
      const res = await call('GET', `/webhooks/history?pageSize=${size}`);
      expect(res.status, size).toBe(400);
      expect(res.body.message, size).toBe('invalid query: query.pageSize: must be an integer from 1 to 100');
    }
    const abc = await call('GET', '/webhooks/abc');
    expect(abc.status).toBe(400);
    expect(abc.body.message).toBe('invalid path: path.id: must be a positive integer');
  });

  it('a YAML body that does not parse says what is wrong in words', async () => {
    const res = await call('POST', '/integrations?dryRun=true', {
      raw: 'type: ClusterWarehouse\nconfig: host: h\n',
      contentType: 'application/yaml',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'request body is not valid YAML at line 2, column 9: a mapping is nested on the same line as its key (put it on the next line, indented, or quote the value)',
    );
  });
});
