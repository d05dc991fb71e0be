/**
 * Errors to HTTP, in one place. Domain code throws the classes of `shared/errors.ts`; the edge
 * itself throws the protocol errors below (media type, size). `HTTP_STATUS` is the only table
 * that turns an error into a status; every answer is `{statusCode, error, message, ...details}`.
 * Anything not in the table becomes a 500 with a generic message: raw upstream errors never
 * reach a client. The body's schema (for the OpenAPI document) is in `./error-body.ts`: this
 * module is zod-free, so an API function whose contract has no schemas loads no zod at init.
 */
import {
  ConflictError,
  DependencyFailedError,
  DomainError,
  InvalidInputError,
  LimitExceededError,
  NotAuthenticatedError,
  NotFoundError,
  NotPermittedError,
  RateLimitedError,
  RemoteUnavailableError,
  UnprocessableError,
} from '../errors';
import { type ErrorBody, errorBody } from './response';

/** The request body is larger than the edge accepts. */
export class PayloadTooLargeError extends DomainError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number, what = 'request body') {
    super(`${what} exceeds the limit of ${limitBytes} bytes`);
  }
}

/** The request's Content-Type is not one the route accepts. */
export class UnsupportedMediaTypeError extends DomainError {
  override name = 'UnsupportedMediaTypeError';
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** Error class → HTTP status. Subclasses inherit their parent's status. */
const HTTP_STATUS: ReadonlyMap<ErrorClass, number> = new Map<ErrorClass, number>([
  [InvalidInputError, 400],
  [NotAuthenticatedError, 401],
  [NotPermittedError, 403],
  [NotFoundError, 404],
  [ConflictError, 409],
  [PayloadTooLargeError, 413],
  [UnsupportedMediaTypeError, 415],
  [UnprocessableError, 422],
  [LimitExceededError, 429],
  [DependencyFailedError, 502],
  [RemoteUnavailableError, 503],
]);

/** The status an error maps to, or undefined when it is not a known error (→ a generic 500). */
export function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof DomainError)) return undefined;
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Error.prototype; ) {
    const status = HTTP_STATUS.get(proto.constructor as ErrorClass);
    if (status !== undefined) return status;
    proto = Object.getPrototypeOf(proto);
  }
  return undefined;
}

/** Headers an error answer carries: `Retry-After` (seconds) when the caller is rate limited. */
export function errorHeaders(error: unknown): Record<string, string> {
  return error instanceof RateLimitedError ? { 'retry-after': String(error.retryAfterSeconds) } : {};
}

/** The answer for a known error, or undefined for anything else. */
export function knownErrorBody(error: unknown): ErrorBody | undefined {
  const status = httpStatusOf(error);
  if (status === undefined) return undefined;
  const domain = error as DomainError;
  return errorBody(status, domain.message, domain.details);
}
