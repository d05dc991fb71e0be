/**
 * Domain errors. Use cases throw these; they know nothing of HTTP. The API edge maps each class
 * to a status in one table (`shared/edge/errors.ts`), and every other caller (workflow tasks,
 * queue consumers, the CLI) reads them by class.
 *
 * `details` are extra, secret-free fields for the caller (e.g. `validationResults` on a failed
 * validation, `attributes` naming non-editable fields).
 */
export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The request is malformed or breaks a rule that needs no stored state to check. */
export class InvalidInputError extends DomainError {
  override name = 'InvalidInputError';
}

/** No (valid) credentials. */
export class NotAuthenticatedError extends DomainError {
  override name = 'NotAuthenticatedError';
  constructor(message = 'a valid API key is required in the Authorization header') {
    super(message);
  }
}

/** Authenticated, but the principal may not do this. */
export class NotPermittedError extends DomainError {
  override name = 'NotPermittedError';
  constructor(message = 'this operation requires the APPLICATION_ADMIN permission') {
    super(message);
  }
}

/** The object does not exist, or the caller may not know that it does. */
export class NotFoundError extends DomainError {
  override name = 'NotFoundError';
}

/** The object's current state does not allow the operation (or a concurrent writer won). */
export class ConflictError extends DomainError {
  override name = 'ConflictError';
}

/** Well-formed, but checks against the outside world failed (e.g. validation tests). */
export class UnprocessableError extends DomainError {
  override name = 'UnprocessableError';
}

/** A limit the caller has reached (quota, rate). */
export class LimitExceededError extends DomainError {
  override name = 'LimitExceededError';
}

/** A rate the caller has reached; it may try again after `retryAfterSeconds`. */
export class RateLimitedError extends LimitExceededError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, undefined, options);
  }
}

/** A service this one depends on answered with a failure (e.g. the platform connector function). */
export class DependencyFailedError extends DomainError {
  override name = 'DependencyFailedError';
}

/** The operation could not be started now; the caller should retry. */
export class RemoteUnavailableError extends DomainError {
  override name = 'RemoteUnavailableError';
}
