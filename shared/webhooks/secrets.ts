/**
 * The box webhook secrets are sealed in (envelope encryption, shared/crypto/envelope.ts): the
 * API seals a secret when a webhook is created, the delivery pipeline opens it to sign a
 * request. Neither side depends on the other for it.
 */
import { SecretBox } from '../crypto/envelope';

export const webhookSecrets = new SecretBox('webhook-secret');
