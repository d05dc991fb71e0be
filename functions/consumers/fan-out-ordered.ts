import { queueConsumer } from '../../shared/edge/queue/consumer';
import { fanOut, fanOutMessage } from '../../shared/webhooks/pipeline/fan-out';

/**
 * Ordered intake consumer (ADR 0020): the fan-out of notifications with an `orderingKey`, one
 * FIFO message group per key. The edge runs different keys side by side and a key's
 * notifications one after another, stopping at the first that fails or continues.
 */
export const handler = queueConsumer({
  queue: 'notificationsOrdered',
  message: fanOutMessage,
  attemptsUnused: true,
  handle: fanOut,
});
