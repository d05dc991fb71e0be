/**
 * One rule for credential usernames (issue 24, finding 9; docs/integrations.md, "Usernames"):
 * every returned config shows a `username` field as the redaction placeholder, as the contract
 * requires; scripts name the account they act on, as an identifier; passwords never appear in
 * either. Both kinds of routes are admin-only.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createKey } from '../../support/api';
import { type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen } from './helpers';

const passwords: string[] = [];
afterAll(() => expectNoSecretsIn(seen, passwords));

describe('credential usernames', () => {
  it('are the placeholder in returned configs and identifiers in scripts; passwords in neither', async () => {
    const payload = payloads(uid()).ClusterWarehouse as Payload;
    payload.autoBootstrap = false;
    const username = String(payload.config.username);
    passwords.push(String(payload.config.password));
    await runManualSetup(payload);
    const created = await api('POST', '/integrations', { body: payload });
    expect(created.status, created.text).toBe(202);
    const id = created.body.id as string;
    await expectSettles(id, 'enabled');

    const read = await api('GET', `/integrations/${id}`);
    expect(read.body.config).toMatchObject({ username: '[REDACTED]', password: '[REDACTED]' });
    const listed = (await api('GET', '/integrations')).body.find((i: { id: string }) => i.id === id);
    expect(listed.config).toMatchObject({ username: '[REDACTED]', password: '[REDACTED]' });
    expect(JSON.stringify([read.body, listed])).not.toContain(username);

    // A password change with the username left as the placeholder: the script names the stored
    // user and sets the password sent in this request (never the stored one).
    const edit = await api('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...read.body.config, password: `new-${uid()}` },
      },
    });
    expect(edit.status, edit.text).toBe(200);
    const remove = await api('POST', `/integrations/${id}/scripts/delete`);
    expect(remove.status, remove.text).toBe(200);
    for (const script of [edit.body.script, remove.body.script] as string[]) {
      expect(script).toContain(`"${username}"`);
      expect(script).not.toContain(`'${username}'`);
    }

    // Only admins reach either kind of route.
    const user = await createKey(`username-rule-${uid()}`);
    for (const [method, path] of [
      ['GET', `/integrations/${id}`],
      ['POST', `/integrations/${id}/scripts/delete`],
    ] as const)
      expect((await api(method, path, { key: user.apiKey })).status, path).toBe(403);
    expect(secretValues(payload)).toContain(username);
  });
});
