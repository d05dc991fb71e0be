/**
 * Which subscription items a change writes again when `ordered` moves (issue 41, step 2): the
 * items carry it, so switching it rewrites every kept item, and nothing else about it does; a
 * switch alone always fits one change (one item per subscribable name at most).
 */
import { describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_NAMES } from '../../../shared/notifications/catalog';
import type { WebhookItem } from '../../../shared/webhooks/model';
import { MAX_SUBSCRIPTION_CHANGES, subscriptionChanges } from '../../../shared/webhooks/store/webhooks';

const webhook = (extra: Partial<WebhookItem> = {}): WebhookItem => ({
  id: 7,
  name: 'ordered',
  url: 'https://example.com/hook',
  global: false,
  notificationType: ['modelAccessRequested', 'modelAccessApproved'],
  actionType: 'triggered',
  createdBy: 3,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  status: 'enabled',
  version: 1,
  ...extra,
});

const KEPT = ['modelAccessRequested#user#3', 'modelAccessApproved#user#3'];

describe('subscription items and ordered', () => {
  it('a switch of ordered, either way, rewrites every kept item', () => {
    expect(subscriptionChanges(webhook(), webhook({ ordered: true }))).toEqual({
      remove: [],
      add: [],
      rewrite: KEPT,
    });
    expect(subscriptionChanges(webhook({ ordered: true }), webhook())).toEqual({
      remove: [],
      add: [],
      rewrite: KEPT,
    });
  });

  it('an unfiltered webhook whose ordered stays as it was rewrites nothing', () => {
    expect(
      subscriptionChanges(webhook({ ordered: true }), webhook({ ordered: true, name: 'x' })).rewrite,
    ).toEqual([]);
    expect(subscriptionChanges(webhook(), webhook({ name: 'x' })).rewrite).toEqual([]);
  });

  it('a new type of an ordered webhook is added (its item is written with ordered), the others kept', () => {
    const before = webhook({ ordered: true });
    const after = webhook({
      ordered: true,
      notificationType: [...before.notificationType, 'modelAccessRevoked'],
    });
    expect(subscriptionChanges(before, after)).toEqual({
      remove: [],
      add: ['modelAccessRevoked#user#3'],
      rewrite: [],
    });
  });

  it('switching ordered alone fits one change, whatever the webhook subscribes to', () => {
    const all = SUBSCRIBABLE_NAMES.map(String);
    const { remove, add, rewrite } = subscriptionChanges(
      webhook({ notificationType: all }),
      webhook({ notificationType: all, ordered: true }),
    );
    expect(rewrite).toHaveLength(all.length);
    expect(remove.length + add.length + rewrite.length).toBeLessThanOrEqual(MAX_SUBSCRIPTION_CHANGES);
  });
});
