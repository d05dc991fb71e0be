import { describe, expect, it } from 'vitest';
import {
  classOfStatus,
  outcomeClassOf,
  storedOutcomeClass,
  succeeded,
} from '../../../shared/webhooks/outcome-class';
import { alreadyHandled } from '../../../shared/webhooks/pipeline/delivery';
import { nextStep } from '../../../shared/webhooks/pipeline/retry';
import { outcomeOf } from '../../../shared/webhooks/store/history-keys';

describe("an attempt's outcome class", () => {
  it('classes an HTTP answer: 2xx delivered, 410 gone, anything else failed', () => {
    for (const status of [200, 201, 204, 299]) expect(classOfStatus(status)).toBe('delivered');
    expect(classOfStatus(410)).toBe('gone');
    for (const status of [0, 100, 199, 300, 302, 400, 404, 429, 500, 503])
      expect(classOfStatus(status)).toBe('failed');
  });

  it('counts exactly a 2xx as a success, as the listing keys and counters do', () => {
    for (const status of [0, 199, 200, 299, 300, 410, 500]) {
      expect(succeeded(status)).toBe(classOfStatus(status) === 'delivered');
      expect(outcomeOf(status)).toBe(succeeded(status) ? 's' : 'f');
    }
  });

  it('reads a record without a class by its status (every record written before it, every HTTP one)', () => {
    expect(outcomeClassOf({ statusCode: 204 })).toBe('delivered');
    expect(outcomeClassOf({ statusCode: 410 })).toBe('gone');
    expect(outcomeClassOf({ statusCode: 400 })).toBe('failed');
    expect(outcomeClassOf({ statusCode: 0 })).toBe('failed');
  });

  it('reads a stored class before the status', () => {
    // A destination's queue that does not exist: AWS answers 400.
    expect(outcomeClassOf({ statusCode: 400, outcomeClass: 'gone' })).toBe('gone');
    expect(outcomeClassOf({ statusCode: 410, outcomeClass: 'failed' })).toBe('failed');
  });

  it('is stored only when the status does not tell it, so HTTP records keep their shape', () => {
    expect(storedOutcomeClass({ statusCode: 200, outcomeClass: 'delivered' })).toEqual({});
    expect(storedOutcomeClass({ statusCode: 410, outcomeClass: 'gone' })).toEqual({});
    expect(storedOutcomeClass({ statusCode: 500, outcomeClass: 'failed' })).toEqual({});
    expect(storedOutcomeClass({ statusCode: 0, outcomeClass: 'failed' })).toEqual({});
    expect(storedOutcomeClass({ statusCode: 400, outcomeClass: 'gone' })).toEqual({ outcomeClass: 'gone' });
  });

  it('decides the retry policy: a gone target ends the delivery whatever its status', () => {
    const schedule = [5, 300];
    expect(nextStep(1, { statusCode: 400, outcomeClass: 'gone' }, schedule)).toEqual({ kind: 'gone' });
    expect(nextStep(1, { statusCode: 400, outcomeClass: 'failed' }, schedule)).toEqual({
      kind: 'retry',
      delaySeconds: 5,
    });
    expect(nextStep(1, { statusCode: 400 }, schedule)).toEqual({ kind: 'retry', delaySeconds: 5 });
    expect(nextStep(1, { statusCode: 410 }, schedule)).toEqual({ kind: 'gone' });
    expect(nextStep(3, { statusCode: 400, outcomeClass: 'failed' }, schedule)).toEqual({ kind: 'exhausted' });
  });

  it('drops the next message of a delivery that ended as gone, by its stored class or its status', () => {
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 400, outcomeClass: 'gone' }])).toMatch(/ended/);
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 410 }])).toMatch(/ended/);
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 400 }])).toBeUndefined();
    expect(alreadyHandled(3, [{ attempt: 2, statusCode: 400, outcomeClass: 'failed' }])).toBeUndefined();
  });
});
