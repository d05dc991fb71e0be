/**
 * The response check the test clients run on every answer (test/support/contract.ts) finds
 * what the document does not allow, and lets through what it does.
 */
import { describe, expect, it } from 'vitest';
import { type ObservedResponse, responseMismatches } from '../../support/contract';
import { responseValidators } from '../../support/response-validators';

const json = 'application/json';
const error = (status: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ statusCode: status, error: 'x', message: 'y', ...extra });

function check(
  r: Partial<ObservedResponse> & Pick<ObservedResponse, 'method' | 'path' | 'status'>,
): string[] {
  return responseMismatches({ contentType: json, text: '', ...r });
}

describe('response validation against the served document', () => {
  it('has a compiled validator for every JSON body the document describes, and none failed to compile', () => {
    const { validators } = responseValidators();
    const failed = [...validators].filter(([, v]) => typeof v === 'string');
    expect(failed).toEqual([]);
    // The error schema and the bodies of the document's responses (more than one per route).
    expect(validators.size).toBeGreaterThan(100);
    expect([...validators.keys()]).toContain('#/components/schemas/Error');
  });

  it('accepts documented answers, errors with their documented extras included', () => {
    expect(check({ method: 'GET', path: '/webhooks/7', status: 404, text: error(404) })).toEqual([]);
    expect(
      check({ method: 'GET', path: '/webhooks/actions', status: 200, text: '["ALL_NOTIFICATIONS"]' }),
    ).toEqual([]);
    const failed = { validationResults: { status: 'failed', validationTests: [] } };
    expect(check({ method: 'POST', path: '/integrations', status: 422, text: error(422, failed) })).toEqual(
      [],
    );
  });

  it('refuses a status the operation does not list', () => {
    const problems = check({ method: 'GET', path: '/webhooks/actions', status: 404, text: error(404) });
    expect(problems.join()).toMatch(/answered 404, which the document does not list/);
  });

  it('refuses a body that does not match the schema, and a wrong media type', () => {
    expect(check({ method: 'GET', path: '/webhooks/actions', status: 200, text: '[1]' }).join()).toMatch(
      /body\/0 must be string/,
    );
    expect(
      check({
        method: 'GET',
        path: '/webhooks/actions',
        status: 200,
        contentType: 'text/plain',
        text: '[]',
      }).join(),
    ).toMatch(/content-type "text\/plain"/);
    expect(check({ method: 'POST', path: '/integrations', status: 422, text: error(422) }).join()).toMatch(
      /validationResults/,
    );
  });

  it('refuses an error body whose statusCode is not the HTTP status', () => {
    expect(check({ method: 'GET', path: '/webhooks/7', status: 404, text: error(400) }).join()).toMatch(
      /statusCode is not the HTTP status/,
    );
  });

  it('holds requests no operation matches to 404 (unknown path) and 405 (unknown method)', () => {
    expect(check({ method: 'GET', path: '/nope', status: 404, text: error(404) })).toEqual([]);
    expect(check({ method: 'DELETE', path: '/health', status: 405, text: error(405) })).toEqual([]);
    expect(check({ method: 'DELETE', path: '/health', status: 404, text: error(404) }).join()).toMatch(
      /expected 405, got 404/,
    );
    expect(check({ method: 'HEAD', path: '/webhooks', status: 405 })).toEqual([]);
  });
});
