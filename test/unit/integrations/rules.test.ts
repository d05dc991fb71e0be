import { describe, expect, it } from 'vitest';
import { httpStatusOf } from '../../../shared/edge/errors';
import {
  configurationSnippet,
  hashClusterKey,
  issueClusterKey,
} from '../../../shared/integrations/api/cluster-key';
import {
  assertNoPlaceholders,
  deleteCredentials,
  nonEditableChanges,
} from '../../../shared/integrations/api/rules';
import {
  canDelete,
  outcomeStatus,
  reconcileVerdict,
  refusalMessage,
  updateOperation,
} from '../../../shared/integrations/lifecycle';
import type { IntegrationRecord } from '../../../shared/integrations/model';
import { executionName } from '../../../shared/integrations/model';
import { failureReason } from '../../../shared/integrations/workflow/outcome';
import { type IntegrationPayload, REDACTED, uniquenessClaims } from '../../../shared/platforms';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import { type Payload, payloads } from './fixtures';

function statusOf(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return httpStatusOf(error) ?? -1;
  }
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

const parse = (p: Payload) => IntegrationPayloadSchema.parse(p);

function recordFrom(payload: IntegrationPayload, id = 7): IntegrationRecord {
  return {
    id,
    type: payload.type,
    ...(payload.type === 'FederatedSql'
      ? {}
      : { autoBootstrap: payload.autoBootstrap, config: payload.config }),
    status: 'enabled',
    version: 3,
    claims: uniquenessClaims(payload).map((c) => c.claim),
    createdAt: '',
    updatedAt: '',
  } as IntegrationRecord;
}

describe('lifecycle transitions', () => {
  it.each([
    ['create', 'succeeded', 'enabled'],
    ['create', 'failed', 'createError'],
    ['edit', 'succeeded', 'enabled'],
    ['edit', 'failed', 'editError'],
    ['delete', 'succeeded', 'deleted'],
    ['delete', 'failed', 'deleteError'],
  ] as const)('%s %s → %s', (op, outcome, status) => expect(outcomeStatus(op, outcome)).toBe(status));

  it('a PUT edits enabled/editError integrations and retries a failed creation', () => {
    expect(updateOperation('enabled')).toBe('edit');
    expect(updateOperation('editError')).toBe('edit');
    expect(updateOperation('createError')).toBe('create');
    for (const s of ['creating', 'editing', 'deleting', 'deleted', 'disabled', 'deleteError'] as const)
      expect(updateOperation(s)).toBeUndefined();
  });

  it('refusals name the id and state, and point deleted integrations at POST', () => {
    expect(refusalMessage(4, 'editing', 'update')).toMatch(/integration 4 is currently editing/);
    expect(refusalMessage(4, 'deleting', 'delete')).toMatch(/currently deleting/);
    expect(refusalMessage(4, 'deleted', 'update')).toMatch(/re-create it with POST \/integrations/);
    expect(refusalMessage(4, 'enabled', 'update')).toBeUndefined();
    expect(refusalMessage(4, 'deleteError', 'delete')).toBeUndefined();
    expect(canDelete('creating')).toBe(false);
    expect(canDelete('createError')).toBe(true);
  });

  it('reconciler verdicts', () => {
    const base = { timeoutSeconds: 100, startGraceSeconds: 10 };
    expect(reconcileVerdict({ ...base, execution: 'RUNNING', ageSeconds: 50 }).fail).toBe(false);
    expect(reconcileVerdict({ ...base, execution: 'RUNNING', ageSeconds: 150 }).fail).toBe(true);
    expect(reconcileVerdict({ ...base, execution: 'missing', ageSeconds: 5 }).fail).toBe(false);
    expect(reconcileVerdict({ ...base, execution: 'missing', ageSeconds: 15 }).fail).toBe(true);
    expect(reconcileVerdict({ ...base, execution: 'ABORTED', ageSeconds: 1 })).toEqual({
      fail: true,
      reason: 'the workflow ended (ABORTED) without recording an outcome',
    });
  });

  it('execution names are valid and derived from id and request', () => {
    const name = executionName(12, '0b5f6a3e-4c1d-4e8a-9b7e-2f3c4d5e6f70');
    expect(name).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
    expect(name).toBe(executionName(12, '0b5f6a3e-4c1d-4e8a-9b7e-2f3c4d5e6f70'));
  });
});

describe('failure reasons', () => {
  it('shows connector messages, hides anything else', () => {
    expect(failureReason({ Error: 'PlatformOperationError', Cause: 'database exists' })).toBe(
      'database exists',
    );
    expect(
      failureReason({
        Error: 'PlatformOperationError',
        Cause: JSON.stringify({ errorMessage: 'role missing' }),
      }),
    ).toBe('role missing');
    expect(failureReason({ Error: 'TypeError', Cause: 'password=hunter2 at line 3' })).toBe(
      'the remote operation failed (TypeError)',
    );
    expect(failureReason({ Error: 'States.Timeout' })).toBe('the remote operation timed out');
  });
});

describe('placeholders', () => {
  it('a placeholder left in a secret field is a 400 naming the field', () => {
    const p = payloads().AnalyticsWarehouse as Payload;
    p.config.password = REDACTED;
    const fn = () => assertNoPlaceholders(parse(p));
    expect(statusOf(fn)).toBe(400);
    expect(messageOf(fn)).toMatch(/config\.password/);
  });
});

describe('non-editable attributes', () => {
  const cases: [string, (p: Payload) => void, string[]][] = [
    ['AnalyticsWarehouse', (p) => (p.config.host = 'other.example.com'), ['config.host']],
    ['AnalyticsWarehouse', (p) => (p.config.database = 'other'), ['config.database']],
    ['AnalyticsWarehouse', (p) => (p.config.schema = 'other'), ['config.schema']],
    ['AnalyticsWarehouse', (p) => (p.config.password = 'new'), []],
    ['AnalyticsWarehouse', (p) => (p.autoBootstrap = false), ['autoBootstrap']],
    ['Lakehouse', (p) => (p.config.catalog = 'other'), ['config.catalog']],
    ['Lakehouse', (p) => (p.config.workspaceUrl = 'https://other.example.com'), ['config.workspaceUrl']],
    ['Lakehouse', (p) => (p.config.groupPattern = { deny: 'x' }), []],
    ['DatasetWarehouse', (p) => (p.config.location = 'EU'), ['config.location']],
    ['DatasetWarehouse', (p) => (p.config.dataset = 'other'), ['config.dataset']],
    ['ClusterWarehouse', (p) => (p.config.database = 'x'), ['config.database']],
    ['ClusterWarehouse', (p) => (p.config.port = 5440), []],
    ['CloudWarehouse', (p) => (p.config.host = 'x.example.com'), ['config.host']],
    ['CloudWarehouse', (p) => (p.config.warehouse = 'OTHER'), []],
  ];
  it.each(cases)('%s', (type, change, expected) => {
    const original = parse(payloads('ne')[type] as Payload);
    const edited = structuredClone(payloads('ne')[type]) as Payload;
    change(edited);
    const next = parse(edited);
    const claims = uniquenessClaims(next).map((c) => c.claim);
    expect(nonEditableChanges(recordFrom(original), next, claims, false)).toEqual(expected);
  });

  it('a creation retry may change everything but the type and host identity', () => {
    const original = parse(payloads('r').CloudWarehouse as Payload);
    const edited = structuredClone(payloads('r').CloudWarehouse) as Payload;
    edited.config.database = 'OTHER';
    edited.autoBootstrap = false;
    const next = parse(edited);
    expect(
      nonEditableChanges(
        recordFrom(original),
        next,
        uniquenessClaims(next).map((c) => c.claim),
        true,
      ),
    ).toEqual([]);
    edited.config.host = 'moved.example.com';
    const moved = parse(edited);
    expect(
      nonEditableChanges(
        recordFrom(original),
        moved,
        uniquenessClaims(moved).map((c) => c.claim),
        true,
      ),
    ).toEqual(['config.host']);
  });
});

describe('delete payload rules', () => {
  const creds = { authenticationType: 'userPassword', username: 'admin', password: 'pw' };
  const rec = (type: string, autoBootstrap: boolean | undefined) =>
    ({ id: 3, type, autoBootstrap }) as Pick<IntegrationRecord, 'id' | 'type' | 'autoBootstrap'>;
  const cases: [string, string, boolean | undefined, unknown, number | undefined][] = [
    ['manual AnalyticsWarehouse, no body', 'AnalyticsWarehouse', false, undefined, undefined],
    [
      'manual AnalyticsWarehouse, only authenticationType',
      'AnalyticsWarehouse',
      false,
      { authenticationType: 'userPassword' },
      undefined,
    ],
    ['manual AnalyticsWarehouse, credentials', 'AnalyticsWarehouse', false, creds, 400],
    ['manual ClusterWarehouse, credentials', 'ClusterWarehouse', false, creds, 400],
    ['manual CloudWarehouse, credentials', 'CloudWarehouse', false, { ...creds, role: 'R' }, 400],
    ['automatic AnalyticsWarehouse, no body', 'AnalyticsWarehouse', true, undefined, 400],
    [
      'automatic AnalyticsWarehouse, no password',
      'AnalyticsWarehouse',
      true,
      { authenticationType: 'userPassword', username: 'a' },
      400,
    ],
    ['automatic AnalyticsWarehouse, credentials', 'AnalyticsWarehouse', true, creds, undefined],
    ['automatic ClusterWarehouse, empty object', 'ClusterWarehouse', true, {}, 400],
    ['automatic ClusterWarehouse, credentials', 'ClusterWarehouse', true, creds, undefined],
    ['automatic CloudWarehouse, missing role', 'CloudWarehouse', true, creds, 400],
    ['automatic CloudWarehouse, credentials', 'CloudWarehouse', true, { ...creds, role: 'R' }, undefined],
    ['automatic Lakehouse, credentials', 'Lakehouse', true, { token: 'x' }, 400],
    ['automatic Lakehouse, no body', 'Lakehouse', true, undefined, undefined],
    ['ObjectStore, credentials', 'ObjectStore', false, creds, 400],
    ['DatasetWarehouse, credentials', 'DatasetWarehouse', false, creds, 400],
    ['FederatedSql, credentials', 'FederatedSql', undefined, creds, 400],
    ['FederatedSql, no body', 'FederatedSql', undefined, undefined, undefined],
  ];
  it.each(cases)('%s', (_name, type, auto, body, status) => {
    expect(statusOf(() => deleteCredentials(rec(type, auto), body, false))).toBe(status);
  });

  it('messages follow the spec', () => {
    expect(messageOf(() => deleteCredentials(rec('Lakehouse', true), creds, false))).toMatch(
      /credentials were sent for a Lakehouse integration.*must be removed/,
    );
    expect(messageOf(() => deleteCredentials(rec('ClusterWarehouse', false), creds, false))).toMatch(
      /bootstrapped manually.*must be removed/,
    );
    expect(messageOf(() => deleteCredentials(rec('CloudWarehouse', true), undefined, false))).toMatch(
      /autoBootstrap true and no privileged credentials were sent/,
    );
  });

  it('forceDisable needs no credentials but still refuses them where none are taken', () => {
    expect(deleteCredentials(rec('CloudWarehouse', true), undefined, true)).toBeUndefined();
    expect(statusOf(() => deleteCredentials(rec('Lakehouse', false), { token: 'x' }, true))).toBe(400);
  });
});

describe('FederatedSql key', () => {
  it('issues a fresh key whose hash is stored, and a snippet carrying it', () => {
    const a = issueClusterKey();
    const b = issueClusterKey();
    expect(a.apiKey).not.toBe(b.apiKey);
    expect(a.apiKeyHash).toBe(hashClusterKey(a.apiKey));
    expect(a.apiKeyHash).not.toContain(a.apiKey);
    const snippet = configurationSnippet({
      integrationId: 9,
      apiKey: a.apiKey,
      serviceUrl: 'https://api.example.com',
    });
    expect(snippet).toContain(`causeway.api-key=${a.apiKey}`);
    expect(snippet).toContain('causeway.integration-id=9');
    expect(snippet).toContain('causeway.service-url=https://api.example.com');
  });
});
