/**
 * The CLI's `webhooks` commands (infra/cli/webhooks.ts) against the local gateway, through the
 * typed client: each answers what the API answers, with the caller's permissions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_URL_ENV } from '../../../infra/cli/target';
import { webhooksCommand } from '../../../infra/cli/webhooks';
import { baseUrl, call, createKey, untilDone } from '../../support/api';
import { parkedHead, parkKeys } from '../../support/parked-keys';
import { createHooks } from './helpers';
import { type Receiver, startReceiver } from './receiver';

// biome-ignore lint/suspicious/noExplicitAny: CLI answers are asserted field by field
type Answer = Record<string, any>;

describe('cli webhooks commands', () => {
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });
  afterEach(() => {
    delete process.env[API_URL_ENV];
  });

  it('disables, enables, rotates, test-sends and recovers a webhook as the API does', async () => {
    process.env[API_URL_ENV] = baseUrl();
    const owner = await createKey('cli-webhooks-owner');
    const other = await createKey('cli-webhooks-other');
    const [id] = await createHooks(owner.apiKey, [
      {
        name: 'cli-ops',
        url: receiver.url('/cli-ops'),
        global: false,
        notificationType: ['queryCreated'],
        actionType: 'triggered',
      },
    ]);
    const run = async (key: string, ...args: string[]) =>
      (await webhooksCommand([
        args[0] as string,
        '--key',
        key,
        '--id',
        String(id),
        ...args.slice(1),
      ])) as Answer;

    expect(await run(owner.apiKey, 'disable', '--reason', 'moving hosts')).toMatchObject({
      id,
      status: 'disabled',
      disabledReason: 'disabled by its owner: moving hosts',
    });
    expect(await run(owner.apiKey, 'enable')).toMatchObject({ id, status: 'enabled' });

    const rotated = await run(owner.apiKey, 'rotate-secret');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.webhook).toMatchObject({ id });

    const sent = await run(owner.apiKey, 'test');
    expect(sent).toMatchObject({ test: true, webhooksId: id, statusCode: 200 });
    expect(receiver.byPath('/cli-ops')).toHaveLength(1);

    const since = new Date(Date.now() - 60_000).toISOString();
    // The test send succeeded: nothing failed to re-send; --all counts it.
    expect(await run(owner.apiKey, 'recover', '--since', since, '--dry-run')).toMatchObject({
      dryRun: true,
      deliveries: 0,
      onlyFailed: true,
    });
    expect(await run(owner.apiKey, 'recover', '--since', since, '--all', '--dry-run')).toMatchObject({
      dryRun: true,
      deliveries: 1,
      onlyFailed: false,
    });
    const job = await run(owner.apiKey, 'recover', '--since', since, '--all');
    expect(job).toMatchObject({ webhookId: id, onlyFailed: false, status: 'running' });
    const done = await untilDone(
      () => run(owner.apiKey, 'recover-status', '--job', job.jobId),
      (j) => j.status === 'completed' && j.resent >= 1,
      { progress: (j) => [j.scanned, j.resent], what: 'the recover job' },
    );
    expect(done).toMatchObject({ deliveries: 1, enqueued: 1, resent: 1 });
    expect(receiver.byPath('/cli-ops').map((r) => r.headers['webhook-id'])).toEqual([
      sent.deliveryId,
      sent.deliveryId,
    ]);

    // Another user's key: the API's 404, named with its status.
    await expect(run(other.apiKey, 'disable')).rejects.toThrow(/^404 Not Found: /);
    expect((await call('GET', `/webhooks/${id}`, { key: owner.apiKey })).body.status).toBe('enabled');
  });

  it('refuses missing or unknown arguments before calling the API', async () => {
    process.env[API_URL_ENV] = baseUrl();
    const key = ['--key', 'unused'];
    await expect(webhooksCommand(['recover', ...key, '--id', '1'])).rejects.toThrow(/--since T/);
    await expect(webhooksCommand(['recover-status', ...key, '--id', '1'])).rejects.toThrow(/--job JOB/);
    await expect(webhooksCommand(['disable', ...key, '--id', 'x'])).rejects.toThrow(/--id ID/);
    await expect(webhooksCommand(['pause', ...key, '--id', '1'])).rejects.toThrow(/unknown webhooks command/);
    await expect(webhooksCommand(['enable', ...key, '--colour', 'red'])).rejects.toThrow(/colour/);
  });

  it('lists, resumes and skips the parked keys of an ordered webhook', async () => {
    process.env[API_URL_ENV] = baseUrl();
    const owner = await createKey('cli-webhooks-keys');
    const [id = 0] = await createHooks(owner.apiKey, [
      {
        name: 'cli-keys',
        url: receiver.url('/cli-keys'),
        global: false,
        notificationType: ['queryCreated'],
        actionType: 'triggered',
        ordered: true,
      },
    ]);
    // Two keys parked as the ordered deliveries consumer parks them (a `/` in each).
    await parkKeys(
      id,
      [
        [1, 'tenant/1'],
        [2, 'tenant/2'],
      ],
      'cli key',
    );
    const head = (n: number, key: string) => parkedHead(id, n, key, 'cli key');
    const run = async (...args: string[]) =>
      (await webhooksCommand([
        args[0] as string,
        '--key',
        owner.apiKey,
        '--id',
        String(id),
        ...args.slice(1),
      ])) as Answer;

    const listed = await run('keys', '--state', 'parked');
    expect(listed.keys.map((k: Answer) => [k.key, k.state, k.waiting])).toEqual([
      ['tenant/1', 'parked', 1],
      ['tenant/2', 'parked', 1],
    ]);
    expect(
      await run('skip-key', '--ordering-key', 'tenant/1', '--head', head(1, '').deliveryId),
    ).toMatchObject({
      key: 'tenant/1',
      state: 'draining',
      skippedDeliveryId: head(1, '').deliveryId,
    });
    expect(await run('resume-key', '--ordering-key', 'tenant/2')).toMatchObject({
      key: 'tenant/2',
      state: 'draining',
    });
    await untilDone(
      async () => (await run('keys')).keys.length,
      (n) => n === 0,
      { what: 'both keys flowing again' },
    );
    // The resumed head was sent; the skipped one never was.
    await untilDone(
      async () => receiver.byPath('/cli-keys').map((r) => JSON.parse(r.body).text as string),
      (texts) => texts.includes('cli key 2'),
      { what: 'the resumed head delivered' },
    );
    expect(receiver.byPath('/cli-keys').map((r) => JSON.parse(r.body).text)).toEqual(['cli key 2']);
    await expect(run('resume-key')).rejects.toThrow(/--ordering-key K/);
    await expect(run('keys', '--state', 'gone')).rejects.toThrow(/parked, held or draining/);
    await expect(run('skip-key', '--ordering-key', 'tenant/1')).rejects.toThrow(/not parked/);
  });
});
