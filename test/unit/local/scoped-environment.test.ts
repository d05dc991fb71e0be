import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke } from '../../../infra/local/lambda';
import { grantedVariables, resourceBindings, resourceVariables } from '../../../shared/catalog/environment';
import { tableEnvVar } from '../../../shared/catalog/tables';
import {
  ConfigurationError,
  optionalEnv,
  requireEnv,
  withScopedEnvironment,
} from '../../../shared/config/env';

const FIXTURE = 'test/unit/local/fixtures/reads-api-keys-table.ts';
const API_KEYS = tableEnvVar('apiKeys');

describe('scoped environments', () => {
  it('answer the variables they govern from the scope only, and everything else from process.env', () => {
    process.env.SCOPED_TEST_GOVERNED = 'from-process';
    process.env.SCOPED_TEST_FREE = 'free';
    const scope = {
      governs: new Set(['SCOPED_TEST_GOVERNED', 'SCOPED_TEST_OTHER']),
      values: { SCOPED_TEST_OTHER: 'granted' },
    };
    withScopedEnvironment(scope, () => {
      expect(optionalEnv('SCOPED_TEST_GOVERNED')).toBeUndefined();
      expect(() => requireEnv('SCOPED_TEST_GOVERNED')).toThrow(ConfigurationError);
      expect(requireEnv('SCOPED_TEST_OTHER')).toBe('granted');
      expect(requireEnv('SCOPED_TEST_FREE')).toBe('free');
    });
    expect(requireEnv('SCOPED_TEST_GOVERNED')).toBe('from-process');
  });

  it('do not leak between overlapping asynchronous calls', async () => {
    const governs = new Set(['SCOPED_TEST_X']);
    const read = (value: string, delayMs: number) =>
      withScopedEnvironment({ governs, values: { SCOPED_TEST_X: value } }, async () => {
        await new Promise((r) => setTimeout(r, delayMs));
        return optionalEnv('SCOPED_TEST_X');
      });
    expect(await Promise.all([read('a', 30), read('b', 5), read('c', 15)])).toEqual(['a', 'b', 'c']);
  });
});

describe('catalog access → environment (one function for CDK and the local cloud)', () => {
  it('grants a table, both URLs of a queue, every workflow, the secrets key and invoked functions', () => {
    const granted = grantedVariables(
      { tables: [{ table: 'apiKeys', access: 'read' }], sendsTo: ['deliveries'], usesSecrets: true },
      'notifications',
    );
    expect([...granted].sort()).toEqual(
      [
        API_KEYS,
        'QUEUE_DELIVERIES_URL',
        'QUEUE_DELIVERIES_DLQ_URL',
        'QUEUE_NOTIFICATIONS_URL',
        'QUEUE_NOTIFICATIONS_DLQ_URL',
        'SECRETS_KMS_KEY_ID',
        'LOCAL_MASTER_KEY_FILE',
      ].sort(),
    );
    expect(resourceBindings({}).length).toBe(0);
    for (const name of granted) expect(resourceVariables().has(name)).toBe(true);
  });
});

describe('the local runner gives a function only what its catalog entry grants', () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[API_KEYS];
    process.env[API_KEYS] = 'causeway-local-apiKeys';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[API_KEYS];
    else process.env[API_KEYS] = saved;
  });

  it('a function granted the table reaches it', async () => {
    const result = await invoke<{ table: string }>(
      {
        handler: FIXTURE,
        name: 'granted',
        timeoutSeconds: 5,
        access: { tables: [{ table: 'apiKeys', access: 'read' }] },
      },
      {},
    );
    expect(result.table).toBe('causeway-local-apiKeys');
  });

  it('a function denied the table fails as it would in AWS, though the process has the variable', async () => {
    await expect(
      invoke(
        {
          handler: FIXTURE,
          name: 'denied',
          timeoutSeconds: 5,
          access: { tables: [{ table: 'principals', access: 'read' }] },
        },
        {},
      ),
    ).rejects.toThrow(`environment variable ${API_KEYS} is not set`);
  });
});
