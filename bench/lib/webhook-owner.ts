/**
 * A fresh principal and one personal webhook of theirs, made through the local gateway as a user
 * makes it (the end-to-end figures publish to the principal and read what the webhook receives).
 */
import { request } from 'undici';

export async function ownerWithWebhook(
  gateway: string,
  principalName: string,
  webhook: { name: string; url: string; notificationType: string; ordered: boolean },
): Promise<{ userId: number; webhookId: number }> {
  const { createPrincipalWithKey } = await import('../../shared/auth/keys');
  const issued = await createPrincipalWithKey(principalName, []);
  const answer = await request(`${gateway}/webhooks`, {
    method: 'POST',
    headers: { authorization: issued.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      webhooks: [
        {
          name: webhook.name,
          url: webhook.url,
          global: false,
          notificationType: [webhook.notificationType],
          actionType: 'receive',
          ordered: webhook.ordered,
        },
      ],
    }),
  });
  const text = await answer.body.text();
  if (answer.statusCode !== 201) throw new Error(`webhook not created (${answer.statusCode}): ${text}`);
  const webhookId = (JSON.parse(text) as { createdWebhooks: { id: number }[] }).createdWebhooks[0]?.id ?? 0;
  return { userId: issued.userId, webhookId };
}
