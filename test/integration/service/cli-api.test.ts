/** The CLI's `api` commands reach the local gateway through the typed client (infra/cli/api.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { apiCommand } from '../../../infra/cli/api';
import { API_URL_ENV } from '../../../infra/cli/target';
import { adminKey, baseUrl, call } from '../../support/api';

describe('cli api commands (typed client)', () => {
  afterEach(() => {
    delete process.env[API_URL_ENV];
  });

  it('answers me, history and status as the API does, and names the status of an error answer', async () => {
    process.env[API_URL_ENV] = baseUrl();
    const me = await apiCommand(['me', '--key', adminKey()]);
    expect(me).toEqual((await call('GET', '/me')).body);
    const history = (await apiCommand(['history', '--key', adminKey(), '--page-size', '1'])) as {
      records: unknown[];
    };
    expect(history.records.length).toBeLessThanOrEqual(1);
    await expect(apiCommand(['status', '--key', adminKey(), '--id', '987654321'])).rejects.toThrow(
      /^404 Not Found: /,
    );
    await expect(apiCommand(['status', '--key', adminKey(), '--id', 'x'])).rejects.toThrow(/--id ID/);
  });
});
