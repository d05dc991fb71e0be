/**
 * The one catalog of notification names. `GET /webhooks/actions`, webhook validation, the
 * notification message schema and fan-out all read this list.
 *
 * Every notification is classified:
 * - `system`: system events (identity, policy, tag, purpose, health, data-source/project
 *   creation and deletion …). Only APPLICATION_ADMINs may subscribe to them.
 * - `activity`: access requests and activity notifications that pertain to individual users
 *   (access granted or denied, comments, project membership of their data, their own queries
 *   and jobs …). Any user may subscribe to them.
 *
 * `ALL_NOTIFICATIONS` is a subscription wildcard, not a notification: it includes system
 * events, so it is admin-only too.
 *
 * Besides the specification's names, the service emits three operational notifications about
 * webhooks themselves (`origin: 'service'`): `webhookFailing` (the warning at half the
 * auto-disable period), `webhookAutoDisabled` and `webhookKeyParked` (an ordered webhook's key
 * parked, ADR 0020). None of the specification's names fits them
 * (`healthCheckFailed` is a system event about integrations, which the webhook's owner may not
 * subscribe to); they are activity notifications, so every owner can subscribe to news of their
 * own webhooks.
 */

export type NotificationClass = 'system' | 'activity';

export const ALL_NOTIFICATIONS = 'ALL_NOTIFICATIONS';

export const notificationCatalog = {
  acknowledgedAccess: {
    class: 'activity',
    trigger: 'a project member acknowledges the purposes of a project',
  },
  addedToProject: { class: 'activity', trigger: 'a data source is added to a project' },
  apiKeyRevoked: { class: 'activity', trigger: "a user's API key is revoked" },
  attributeAdded: { class: 'system', trigger: 'an attribute is added to a group or user' },
  attributeRemoved: { class: 'system', trigger: 'an attribute is removed from a group or user' },
  attributeUpdated: { class: 'system', trigger: 'attributes of a group or user are updated' },
  bulkJobStatus: { class: 'activity', trigger: 'a bulk action completes, successfully or not' },
  certificationRequired: {
    class: 'activity',
    trigger: 'a Global Policy requiring certification by the data source owner is applied to a data source',
  },
  conflictingGlobalPolicies: {
    class: 'system',
    trigger: 'Global Policies are applied to the same column of a data source',
  },
  dataSourceExpired: { class: 'activity', trigger: 'a data source set to expire has expired' },
  dataSourceExpiring: { class: 'activity', trigger: 'a data source set to expire expires tomorrow' },
  dataSourceUpdated: { class: 'activity', trigger: 'a data source is updated' },
  deletedDatasourceRemovedFromProject: {
    class: 'activity',
    trigger: 'a deleted data source is removed from a project',
  },
  expiredDatasourceRemovedFromProject: {
    class: 'activity',
    trigger: 'an expired and deleted data source is removed from a project',
  },
  firstQuery: { class: 'system', trigger: 'a data source is queried for the first time through the service' },
  globalPolicyCreated: { class: 'system', trigger: 'a Global Policy is created' },
  globalPolicyDeleted: { class: 'system', trigger: 'a Global Policy is deleted' },
  globalPolicyDisabled: { class: 'system', trigger: 'a Global Policy is disabled' },
  globalPolicyUpdated: { class: 'system', trigger: 'a Global Policy is updated' },
  governanceSettingsUpdated: { class: 'system', trigger: 'not shown by the specification' },
  groupUserAdded: { class: 'system', trigger: 'a user is added to a group' },
  groupUserDeleted: { class: 'system', trigger: 'a user is removed from a group' },
  healthCheckFailed: { class: 'system', trigger: 'a health check runs and is not healthy' },
  healthCheckResolved: { class: 'system', trigger: 'a health check runs and is healthy' },
  modelAccessApproved: {
    class: 'activity',
    trigger: 'an access request for a data source or project is approved',
  },
  modelAccessDenied: { class: 'activity', trigger: 'an access request is denied' },
  modelAccessRequested: { class: 'activity', trigger: 'a user requests access to a data source or project' },
  modelAccessRevoked: { class: 'activity', trigger: 'access to a data source or project is revoked' },
  modelAccessUpdated: {
    class: 'activity',
    trigger: "a user's access level for a data source or project changes",
  },
  modelCommentCreated: {
    class: 'activity',
    trigger: 'a comment is left on a data source, column, query or project',
  },
  modelCommentReply: { class: 'activity', trigger: 'a reply is left on such a comment' },
  modelCommentResolved: { class: 'activity', trigger: 'a comment or reply is resolved' },
  modelCopied: { class: 'activity', trigger: 'not shown by the specification' },
  modelCreated: { class: 'system', trigger: 'a data source or project is created' },
  modelDeleted: { class: 'system', trigger: 'a data source or project is deleted' },
  modelTagAdded: { class: 'activity', trigger: 'a tag is added to a data source or column' },
  modelTagRemoved: { class: 'activity', trigger: 'a tag is removed from a data source or column' },
  modelUserAdded: { class: 'activity', trigger: 'a user is added to a data source' },
  modelUserDeleted: { class: 'activity', trigger: 'a user is removed from a data source' },
  modelUserJoined: { class: 'activity', trigger: 'a user joins a data source they may already join' },
  nativeWorkspaceStateChanged: {
    class: 'activity',
    trigger: 'a native workspace configuration in a project changes',
  },
  permissionsUpdated: { class: 'activity', trigger: "a user's permissions are updated" },
  policyAdjustmentCreated: { class: 'system', trigger: 'a policy adjustment is created' },
  policyAdjustmentExpired: {
    class: 'system',
    trigger: 'a policy adjustment expires (by default after a year)',
  },
  policyCertificationExpired: {
    class: 'activity',
    trigger: 'a policy certification on a data source expires',
  },
  policyUpdated: {
    class: 'activity',
    trigger: "a data source's policies are updated by a user or a Global Policy",
  },
  projectDisabled: { class: 'activity', trigger: 'a project is disabled' },
  projectEqualizationMemberNotInCompliance: {
    class: 'activity',
    trigger: 'a member of an equalized project is out of compliance',
  },
  projectEqualizationToggled: { class: 'system', trigger: 'project equalization is switched on or off' },
  projectUpdated: { class: 'activity', trigger: 'a project is updated' },
  purposeCreated: { class: 'system', trigger: 'a purpose is created' },
  purposeDeleted: { class: 'system', trigger: 'a purpose is deleted' },
  purposeUpdated: { class: 'system', trigger: 'a purpose is updated' },
  queryCanceled: {
    class: 'activity',
    trigger: 'a running query is canceled because of a change on a data source',
  },
  queryCreated: { class: 'activity', trigger: 'a user creates a public query on a data source' },
  queryUpdated: { class: 'activity', trigger: 'a public query is updated' },
  removedFromProject: { class: 'activity', trigger: 'a data source is removed from a project' },
  switchedCurrentProject: { class: 'activity', trigger: 'a user switches their current project' },
  tagCreated: { class: 'system', trigger: 'a tag is created' },
  tagDeleted: { class: 'system', trigger: 'a tag is deleted' },
  tagUpdated: { class: 'system', trigger: 'a tag is updated' },
  taskDeleted: {
    class: 'activity',
    trigger: 'an outstanding data source task is deleted without validation',
  },
  taskValidated: { class: 'activity', trigger: 'an outstanding data source task is validated' },
  updatedModelInProject: { class: 'activity', trigger: 'not shown by the specification' },
  userCloned: { class: 'system', trigger: 'a user is cloned' },
  userCreated: { class: 'system', trigger: 'a user or group is created' },
  userDeleted: { class: 'system', trigger: 'a user or group is deleted' },
  userDisabled: { class: 'system', trigger: 'a user is disabled' },
  userEnabled: { class: 'system', trigger: 'a user is enabled' },
  userMigrated: { class: 'system', trigger: 'a user is migrated from an old identity system to a new one' },
  usernameUpdated: { class: 'activity', trigger: "a user's name is updated" },
  userUpdated: { class: 'system', trigger: 'a group is updated' },
  webhookAutoDisabled: {
    class: 'activity',
    origin: 'service',
    metadata: ['targetUser', 'webhookId', 'webhookName', 'url', 'disabledAt', 'disabledReason'],
    trigger:
      'the service disabled one of your webhooks: its receiver answered 410 Gone, or it failed continuously for the auto-disable period',
  },
  webhookKeyParked: {
    class: 'activity',
    origin: 'service',
    metadata: [
      'targetUser',
      'webhookId',
      'webhookName',
      'url',
      'orderingKey',
      'headDeliveryId',
      'attempts',
      'lastError',
    ],
    trigger:
      'an ordering key of one of your ordered webhooks ran out of its retry schedule and was parked: its notifications wait, in order, until you resume or skip it',
  },
  webhookFailing: {
    class: 'activity',
    origin: 'service',
    metadata: ['targetUser', 'webhookId', 'webhookName', 'url', 'failingSince', 'disableAt'],
    trigger:
      'one of your webhooks has failed continuously for half the auto-disable period; it will be disabled unless a delivery succeeds',
  },
} as const satisfies Record<
  string,
  { class: NotificationClass; trigger: string; origin?: 'service'; metadata?: readonly string[] }
>;

export type NotificationName = keyof typeof notificationCatalog;

/** Every notification name, sorted. */
export const NOTIFICATION_NAMES = Object.keys(notificationCatalog).sort() as [
  NotificationName,
  ...NotificationName[],
];

/** What a webhook may subscribe to: every notification name plus the wildcard. */
export type SubscribableName = NotificationName | typeof ALL_NOTIFICATIONS;

export const SUBSCRIBABLE_NAMES = [ALL_NOTIFICATIONS, ...NOTIFICATION_NAMES] as [
  SubscribableName,
  ...SubscribableName[],
];

/** The notifications the service itself emits about webhooks (not in the specification). */
export const OPERATIONAL_NAMES = NOTIFICATION_NAMES.filter(
  (name) => (notificationCatalog[name] as { origin?: string }).origin === 'service',
);

/**
 * The metadata keys a notification of this type carries, when the catalog declares them
 * (the service's own notifications); undefined for an open type (any producer key may appear).
 */
export function declaredMetadata(name: NotificationName): readonly string[] | undefined {
  const declared = (notificationCatalog[name] as { metadata?: readonly string[] }).metadata;
  return declared && ['notificationType', ...declared];
}

export function classify(name: NotificationName): NotificationClass {
  return notificationCatalog[name].class;
}

/** Whether subscribing to `name` needs APPLICATION_ADMIN (system events and the wildcard). */
export function requiresAdmin(name: SubscribableName): boolean {
  return name === ALL_NOTIFICATIONS || classify(name) === 'system';
}

/** `GET /webhooks/actions`: the wildcard first, then every notification name. */
export function validActions(): string[] {
  return [...SUBSCRIBABLE_NAMES];
}
