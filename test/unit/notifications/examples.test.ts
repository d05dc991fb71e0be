import { describe, expect, it } from 'vitest';
import { NOTIFICATION_NAMES, notificationCatalog } from '../../../shared/notifications/catalog';
import { examplePayload } from '../../../shared/notifications/examples';
import { NotificationMessageSchema } from '../../../shared/notifications/message';
import { HistoryRecordSchema } from '../../../shared/webhooks/history-model';

describe('example payloads of the event catalog', () => {
  it('every notification has one that a producer could publish and a receiver would get', () => {
    for (const name of NOTIFICATION_NAMES) {
      const example = examplePayload(name, { id: 5, name: 'mine' });
      // As delivered: the history record's request shape, the type filled in.
      expect(HistoryRecordSchema.shape.request.parse(example), name).toEqual(example);
      expect(example).toMatchObject({
        webhookId: 5,
        webhookName: 'mine',
        metadata: { notificationType: name },
      });
      // As published: a valid notification message of that type.
      const message = NotificationMessageSchema.safeParse({
        notificationType: name,
        text: example.text,
        metadata: example.metadata,
        timestamp: '2026-03-10T09:30:00.000Z',
      });
      expect(message.success, `${name}: ${message.error?.message}`).toBe(true);
      expect(example.text.toLowerCase()).toContain(
        notificationCatalog[name].trigger.toLowerCase().slice(0, 20),
      );
    }
  });

  it('names what the type is about, and the service’s own notifications carry their fields', () => {
    expect(examplePayload('modelAccessRequested').metadata).toMatchObject({ modelId: 42 });
    expect(examplePayload('addedToProject').metadata).toMatchObject({ projectName: expect.any(String) });
    expect(examplePayload('groupUserAdded').metadata).toMatchObject({ targetGroup: 7 });
    expect(examplePayload('webhookAutoDisabled').metadata).toMatchObject({
      webhookId: expect.any(Number),
      disabledAt: expect.any(String),
      disabledReason: expect.any(String),
    });
    expect(examplePayload('webhookFailing').metadata).toMatchObject({ disableAt: expect.any(String) });
  });
});
