import { describe, expect, it } from 'vitest';
import { loadStages, parseStages, stageEnvironment } from '../../../infra/stages';

describe('stage configuration', () => {
  it('cdk.json defines local, dev and prod, and only dev and prod deploy', () => {
    const stages = loadStages();
    expect(Object.keys(stages).sort()).toEqual(['dev', 'local', 'prod']);
    expect(stages.local?.deploy).toBe(false);
    expect(stages.local?.platformMode).toBe('sandbox');
    expect(stages.local?.allowPrivateWebhookTargets).toBe(true);
    expect(stages.prod?.platformMode).toBe('real');
    expect(stages.prod?.allowPrivateWebhookTargets).toBe(false);
    expect(stages.prod?.removalPolicy).toBe('retain');
  });

  it('refuses unknown keys and bad values', () => {
    const good = loadStages().dev;
    expect(() => parseStages({ dev: { ...good, surprise: true } })).toThrow(/causeway:stages/);
    expect(() => parseStages({ dev: { ...good, webhookTimeoutMs: -1 } })).toThrow();
    expect(() => parseStages({ Dev: good })).toThrow();
  });

  it('maps a stage to the environment functions read', () => {
    const env = stageEnvironment('prod', loadStages().prod as never);
    expect(env).toMatchObject({
      CAUSEWAY_STAGE: 'prod',
      PLATFORM_MODE: 'real',
      ALLOW_PRIVATE_TARGETS: 'false',
      ALLOW_PRIVATE_INTEGRATION_HOSTS: 'false',
      WEBHOOK_TIMEOUT_MS: '10000',
    });
    expect(env.WEBHOOK_RETRY_SCHEDULE).toBe('5,300,1800,7200,18000,36000,36000');
  });
});
