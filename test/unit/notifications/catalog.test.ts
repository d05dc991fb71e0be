import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ALL_NOTIFICATIONS,
  classify,
  NOTIFICATION_NAMES,
  OPERATIONAL_NAMES,
  requiresAdmin,
  validActions,
} from '../../../shared/notifications/catalog';
import { renderNotificationSchema, SCHEMA_FILE } from '../../../shared/notifications/json-schema';
import { NotificationMessageSchema, pertainsTo } from '../../../shared/notifications/message';

// The names of the specification's Events table plus the three extra valid actions.
const SPEC_NAMES =
  `acknowledgedAccess addedToProject apiKeyRevoked attributeAdded attributeRemoved attributeUpdated
bulkJobStatus certificationRequired conflictingGlobalPolicies dataSourceExpired dataSourceExpiring dataSourceUpdated
deletedDatasourceRemovedFromProject expiredDatasourceRemovedFromProject firstQuery globalPolicyCreated
globalPolicyDeleted globalPolicyDisabled globalPolicyUpdated groupUserAdded groupUserDeleted healthCheckFailed
healthCheckResolved modelAccessApproved modelAccessDenied modelAccessRequested modelAccessRevoked modelAccessUpdated
modelCommentCreated modelCommentReply modelCommentResolved modelCreated modelDeleted modelTagAdded modelTagRemoved
modelUserAdded modelUserDeleted modelUserJoined nativeWorkspaceStateChanged permissionsUpdated policyAdjustmentCreated
policyAdjustmentExpired policyCertificationExpired policyUpdated projectDisabled projectEqualizationMemberNotInCompliance
projectEqualizationToggled projectUpdated purposeCreated purposeDeleted purposeUpdated queryCanceled queryCreated
queryUpdated removedFromProject switchedCurrentProject tagCreated tagDeleted tagUpdated taskDeleted taskValidated
userCloned userCreated userDeleted userDisabled userEnabled userMigrated usernameUpdated userUpdated
modelCopied updatedModelInProject governanceSettingsUpdated`.split(/\s+/);

// The service's own notifications about webhooks (docs/webhooks.md, Operational notifications).
const OPERATIONAL = ['webhookAutoDisabled', 'webhookFailing', 'webhookKeyParked'];

describe('notification catalog', () => {
  it('holds exactly the specification names and the operational ones, each classified', () => {
    expect([...NOTIFICATION_NAMES].sort()).toEqual([...SPEC_NAMES, ...OPERATIONAL].sort());
    expect([...OPERATIONAL_NAMES].sort()).toEqual(OPERATIONAL);
    for (const name of NOTIFICATION_NAMES) expect(['system', 'activity']).toContain(classify(name));
  });

  it('lets every owner subscribe to news of their own webhooks', () => {
    for (const name of OPERATIONAL_NAMES) expect(requiresAdmin(name)).toBe(false);
  });

  it('lists ALL_NOTIFICATIONS first among the valid actions', () => {
    expect(validActions()[0]).toBe(ALL_NOTIFICATIONS);
    expect(validActions()).toHaveLength(SPEC_NAMES.length + OPERATIONAL.length + 1);
  });

  it('makes system events and the wildcard admin-only, access requests and activity open to all', () => {
    expect(requiresAdmin(ALL_NOTIFICATIONS)).toBe(true);
    expect(requiresAdmin('userCreated')).toBe(true);
    expect(requiresAdmin('modelCreated')).toBe(true);
    expect(requiresAdmin('globalPolicyCreated')).toBe(true);
    expect(requiresAdmin('modelAccessRequested')).toBe(false);
    expect(requiresAdmin('modelAccessApproved')).toBe(false);
    expect(requiresAdmin('modelCommentCreated')).toBe(false);
  });
});

describe('notification message', () => {
  const base = { notificationType: 'modelAccessRequested', text: 'hi', timestamp: '2026-01-01T00:00:00Z' };

  it('accepts the spec metadata fields and extra producer keys', () => {
    const parsed = NotificationMessageSchema.parse({
      ...base,
      metadata: {
        modelId: 3,
        actionBy: 7,
        targetUser: 9,
        targetGroup: null,
        notifyInitiator: true,
        custom: 'x',
      },
      recipients: [1, 2],
      id: 'evt-1',
    });
    expect(parsed.metadata.custom).toBe('x');
    expect(pertainsTo(parsed)).toEqual([1, 2, 7, 9]);
  });

  it('accepts null for every optional metadata field, as producers serialise "no value"', () => {
    const nulls = {
      modelId: null,
      actionBy: null,
      modelType: null,
      targetUser: null,
      projectName: null,
      targetGroup: null,
      actionByName: null,
      targetUserName: null,
      notifyInitiator: null,
      notificationType: null,
    };
    const parsed = NotificationMessageSchema.safeParse({ ...base, metadata: nulls });
    expect(parsed.success).toBe(true);
    if (parsed.success) {
      expect(parsed.data.metadata.projectName).toBeNull();
      expect(pertainsTo(parsed.data)).toEqual([]);
    }
    expect(NotificationMessageSchema.safeParse({ ...base, metadata: { targetUser: 'x' } }).success).toBe(
      false,
    );
  });

  it('includes actionBy only with notifyInitiator', () => {
    const parsed = NotificationMessageSchema.parse({ ...base, metadata: { actionBy: 7, targetUser: 9 } });
    expect(pertainsTo(parsed)).toEqual([9]);
  });

  it('rejects unknown types, the wildcard, unknown fields and a missing timestamp', () => {
    expect(NotificationMessageSchema.safeParse({ ...base, notificationType: 'nope' }).success).toBe(false);
    expect(
      NotificationMessageSchema.safeParse({ ...base, notificationType: ALL_NOTIFICATIONS }).success,
    ).toBe(false);
    expect(NotificationMessageSchema.safeParse({ ...base, extra: 1 }).success).toBe(false);
    expect(NotificationMessageSchema.safeParse({ ...base, timestamp: undefined }).success).toBe(false);
    expect(NotificationMessageSchema.safeParse({ ...base, recipients: [0] }).success).toBe(false);
  });

  it('publishes an up-to-date JSON Schema (regenerate: npx tsx shared/notifications/json-schema.ts --write)', () => {
    // Compared as JSON: the file may be formatted by Biome.
    expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(JSON.parse(renderNotificationSchema()));
  });
});
