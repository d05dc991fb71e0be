import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../shared/errors';
import {
  cachedFilterCount,
  compileFilter,
  EVALUATION_BUDGET_MS,
  evaluateFilter,
  FILTER_CACHE_SIZE,
  filterDecision,
  MAX_FILTER_BYTES,
} from '../../../shared/webhooks/filter';
import type { DeliveryPayload } from '../../../shared/webhooks/history-model';

const payload: DeliveryPayload = {
  text: 'Alice requested access to Sales',
  metadata: {
    notificationType: 'modelAccessRequested',
    actionBy: 7,
    modelId: 42,
    projectName: null,
    dataSourceId: 42,
    tags: ['pii', 'finance'],
  },
  webhookId: 3,
  webhookName: 'access requests',
};

function refusal(source: string): string {
  try {
    compileFilter(source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).details).toEqual({ field: 'filter' });
    return (error as Error).message;
  }
  throw new Error(`compiled: ${source}`);
}

const matches = (source: string) => evaluateFilter(compileFilter(source), payload);

describe('compileFilter', () => {
  it('compiles the allowed subset and evaluates it against the payload', () => {
    expect(
      matches('metadata.notificationType == "modelAccessRequested" && metadata.dataSourceId in [42, 43]'),
    ).toEqual({ matched: true });
    expect(matches('metadata.dataSourceId in [1, 2]')).toEqual({ matched: false });
    expect(matches('text.contains("Sales") && text.startsWith("Alice") && !text.endsWith("x")')).toEqual({
      matched: true,
    });
    expect(matches('has(metadata.actionBy) && !has(metadata.targetUser)')).toEqual({ matched: true });
    expect(matches('metadata.actionBy >= 7 && metadata.actionBy < 8 || false')).toEqual({ matched: true });
    expect(matches('webhookId == 3 && webhookName.size() > 3 && size(metadata.tags) == 2')).toEqual({
      matched: true,
    });
    expect(matches('"pii" in metadata.tags ? metadata.projectName == null : false')).toEqual({
      matched: true,
    });
    expect(matches('metadata["notificationType"] != "modelAccessDenied"')).toEqual({ matched: true });
  });

  it('refuses an expression that does not parse, naming the line and column', () => {
    expect(refusal('metadata.actionBy == 7 &&\n  (text == "a"')).toMatch(
      /^filter: does not parse: .* at line 2, column \d+$/,
    );
    expect(refusal('metadata.actionBy == = 7')).toMatch(/does not parse: .* at line 1, column \d+/);
  });

  it('refuses an expression that does not type-check, naming the line and column', () => {
    expect(refusal('webhookId == 3 &&\n   text > 1')).toBe(
      'filter: does not type-check: no such overload: string > int at line 2, column 4',
    );
    expect(refusal('text')).toMatch(/must give true or false, this one gives a string/);
  });

  it('refuses a filter longer than 2 KB, counted in bytes', () => {
    const long = `text == "${'a'.repeat(MAX_FILTER_BYTES - 11)}"`;
    expect(long.length).toBe(MAX_FILTER_BYTES - 1);
    expect(() => compileFilter(long)).not.toThrow();
    expect(refusal(`${long}  `)).toBe(
      `filter: ${MAX_FILTER_BYTES + 1} bytes; at most ${MAX_FILTER_BYTES} are allowed`,
    );
    const multiByte = `text == "${'é'.repeat(1020)}"`;
    expect(refusal(multiByte)).toMatch(/2050 bytes/);
  });

  it('refuses a field the payload can never have, naming it', () => {
    expect(refusal('secret == "x"')).toBe(
      'filter: the payload has no field secret (it has text, metadata, webhookId, webhookName) at line 1, column 1',
    );
    expect(refusal('metadata.actionBy == 1 || text.length > 3')).toMatch(
      /the payload never has text\.length: text is a string at line 1, column 27/,
    );
    expect(refusal('has(metadata.actionBy.name)')).toMatch(
      /the payload never has metadata\.actionBy\.name: metadata\.actionBy holds a single value/,
    );
    expect(refusal('metadata["targetUser"]["id"] == 1')).toMatch(/never has metadata\.targetUser\.id/);
    expect(refusal('webhookName.first == "a"')).toMatch(/never has webhookName\.first/);
  });

  it('allows metadata keys producers add beyond the schema', () => {
    expect(() => compileFilter('metadata.region.name == "eu"')).not.toThrow();
  });

  it('checks metadata fields against the subscribed types: the union of their metadata', () => {
    const closed = ['webhookFailing'];
    expect(() => compileFilter('metadata.failingSince > "2026" && webhookId == 1', closed)).not.toThrow();
    expect(() => compileFilter('metadata.notificationType == "webhookFailing"', closed)).not.toThrow();
    expect(() => compileFilter('has(metadata.dataSourceId)', closed)).toThrow(
      /filter: the payload never has metadata\.dataSourceId: the subscribed types \(webhookFailing\) carry only metadata\.notificationType, metadata\.targetUser, .* at line 1, column 5/,
    );
    // The union: a key of either closed type is fine; a key of none is not.
    const both = ['webhookFailing', 'webhookAutoDisabled'];
    expect(() =>
      compileFilter('metadata.disabledReason == "x" || metadata.disableAt > "x"', both),
    ).not.toThrow();
    expect(() => compileFilter('metadata.modelId == 1', both)).toThrow(/never has metadata\.modelId/);
    // An open type (the specification's names) or the wildcard: producers may add any key.
    expect(() =>
      compileFilter('metadata.dataSourceId == 1', [...closed, 'modelAccessRequested']),
    ).not.toThrow();
    expect(() => compileFilter('metadata.dataSourceId == 1', ['ALL_NOTIFICATIONS'])).not.toThrow();
  });

  it('names the request field it was given', () => {
    expect(() => compileFilter('text ==', undefined, 'body.webhooks[2].filter')).toThrow(
      /^body\.webhooks\[2\]\.filter: does not parse: .* at line 1, column \d+$/,
    );
  });

  it('refuses what lies outside the subset: macros, regular expressions, arithmetic, map literals', () => {
    expect(refusal('metadata.tags.exists(t, t == "pii")')).toMatch(/exists\(\) is not allowed in filters/);
    expect(refusal('text.matches("(a+)+$")')).toMatch(
      /matches\(\) is not allowed in filters .* at line 1, column 1/,
    );
    expect(refusal('int(webhookId) == 3')).toMatch(/int\(\) is not allowed in filters/);
    expect(refusal('webhookId + 1 == 4')).toMatch(/the operator \+ is not allowed/);
    expect(refusal('{"a": 1}["a"] == 1')).toMatch(/does not parse|not allowed/);
  });

  it('bounds the size of the expression tree and of list literals', () => {
    const manyNodes = Array.from({ length: 110 }, () => 'webhookId==1').join('||');
    expect(manyNodes.length).toBeLessThan(MAX_FILTER_BYTES);
    expect(refusal(manyNodes)).toMatch(/does not parse: Exceeded maxAstNodes/);
    const longList = `webhookId in [${Array.from({ length: 300 }, (_, i) => i).join(',')}]`;
    expect(refusal(longList)).toMatch(/does not parse: .*maxListElements/);
    expect(refusal(`[${'['.repeat(40)}1${']'.repeat(40)}] == []`)).toMatch(/does not parse: .*maxDepth/);
  });
});

describe('evaluateFilter', () => {
  it('counts a run-time error as no match and returns it', () => {
    expect(matches('metadata.absent == 1')).toEqual({
      matched: false,
      error: 'No such key: absent',
      kind: 'no_such_key',
    });
  });

  it('says what kind of error it was without a word of the payload (the kind is what fan-out logs)', () => {
    const canary = 'canary-payload-text-4711';
    const decision = evaluateFilter(compileFilter('metadata[text] == 1'), { ...payload, text: canary });
    expect(decision).toMatchObject({ matched: false, kind: 'no_such_key' });
    expect(JSON.stringify({ kind: (decision as { kind?: string }).kind })).not.toContain(canary);
    // The error itself may quote it: it is answered to a previewing caller, never logged.
    expect((decision as { error?: string }).error).toContain(canary);
  });

  it('counts a non-boolean result as no match', () => {
    expect(matches('metadata.notificationType')).toEqual({
      matched: false,
      error: 'the filter gave string, not true or false',
      kind: 'not_boolean',
    });
  });

  it('counts an evaluation past the time bound twice in a row as no match', () => {
    const times = [0, EVALUATION_BUDGET_MS + 1, 100, 100 + EVALUATION_BUDGET_MS + 2];
    const clock = () => times.shift() ?? 0;
    expect(evaluateFilter(compileFilter('webhookId == 3'), payload, clock)).toEqual({
      matched: false,
      error: `evaluation took ${(EVALUATION_BUDGET_MS + 2).toFixed(1)} ms, past the ${EVALUATION_BUDGET_MS} ms bound`,
      kind: 'time_bound',
    });
    expect(times).toEqual([]);
  });

  it('measures once more before a single slow run counts (a pause of the process is not the expression)', () => {
    const times = [0, EVALUATION_BUDGET_MS + 50, 100, 101];
    const clock = () => times.shift() ?? 0;
    expect(evaluateFilter(compileFilter('webhookId == 3'), payload, clock)).toEqual({ matched: true });
    expect(times).toEqual([]);
  });
});

describe('filterDecision', () => {
  it('lets everything through when the webhook has no filter', () => {
    expect(filterDecision({ id: 1, updatedAt: 't1' }, payload)).toEqual({ matched: true });
    expect(filterDecision({ id: 1, updatedAt: 't1', filter: null }, payload)).toEqual({ matched: true });
  });

  it('compiles once per webhook version: keyed by id and updatedAt', () => {
    const before = cachedFilterCount();
    expect(filterDecision({ id: 10, updatedAt: 't1', filter: 'webhookId == 3' }, payload)).toEqual({
      matched: true,
    });
    // Same version: the compiled filter is reused, so a different text is not even read.
    expect(filterDecision({ id: 10, updatedAt: 't1', filter: 'webhookId == 4' }, payload)).toEqual({
      matched: true,
    });
    // A new version is compiled afresh and replaces the old one.
    expect(filterDecision({ id: 10, updatedAt: 't2', filter: 'webhookId == 4' }, payload)).toEqual({
      matched: false,
    });
    expect(cachedFilterCount()).toBe(before + 1);
  });

  it('counts a stored filter that does not compile as no match with its error', () => {
    expect(filterDecision({ id: 11, updatedAt: 't1', filter: 'secret == 1' }, payload)).toEqual({
      matched: false,
      error: expect.stringMatching(/the payload has no field secret/),
      kind: 'does_not_compile',
    });
  });

  it('holds at most FILTER_CACHE_SIZE compiled filters', () => {
    for (let id = 1000; id < 1000 + FILTER_CACHE_SIZE + 5; id++) {
      filterDecision({ id, updatedAt: 't', filter: 'true' }, payload);
    }
    expect(cachedFilterCount()).toBe(FILTER_CACHE_SIZE);
  });
});
