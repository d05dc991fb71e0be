import { describe, expect, it } from 'vitest';
import { httpStatusOf, knownErrorBody, PayloadTooLargeError } from '../../../shared/edge/errors';
import {
  ConflictError,
  DependencyFailedError,
  DomainError,
  InvalidInputError,
  NotAuthenticatedError,
  NotFoundError,
  NotPermittedError,
  RemoteUnavailableError,
  UnprocessableError,
} from '../../../shared/errors';

describe('domain errors to HTTP', () => {
  it('maps each domain error class to its status in one table', () => {
    expect(httpStatusOf(new InvalidInputError('x'))).toBe(400);
    expect(httpStatusOf(new NotAuthenticatedError())).toBe(401);
    expect(httpStatusOf(new NotPermittedError())).toBe(403);
    expect(httpStatusOf(new NotFoundError('x'))).toBe(404);
    expect(httpStatusOf(new ConflictError('x'))).toBe(409);
    expect(httpStatusOf(new PayloadTooLargeError(10))).toBe(413);
    expect(httpStatusOf(new UnprocessableError('x'))).toBe(422);
    expect(httpStatusOf(new DependencyFailedError('x'))).toBe(502);
    expect(httpStatusOf(new RemoteUnavailableError('x'))).toBe(503);
  });

  it('gives a subclass its parent status, and nothing to unknown errors', () => {
    class ClaimTaken extends ConflictError {}
    expect(httpStatusOf(new ClaimTaken('x'))).toBe(409);
    expect(httpStatusOf(new DomainError('unmapped'))).toBeUndefined();
    expect(httpStatusOf(new Error('boom'))).toBeUndefined();
    expect(knownErrorBody(new Error('boom'))).toBeUndefined();
  });

  it('puts details beside the standard fields, which they cannot override', () => {
    expect(knownErrorBody(new ConflictError('busy', { status: 'editing', statusCode: 999 }))).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'busy',
      status: 'editing',
    });
  });
});
