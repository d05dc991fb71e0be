/**
 * HTTP-facing errors. Domain code throws these (or its own subclasses); the error middleware
 * turns them into `{statusCode, error, message, ...details}` in exactly one place. Anything
 * else becomes a 500 with a generic message — raw upstream errors never reach a client.
 */

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function statusText(statusCode: number): string {
  return STATUS_TEXT[statusCode] ?? 'Error';
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [detail: string]: unknown;
}

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly statusCode: number,
    message: string,
    /** Extra JSON fields for the body (e.g. `validationResults` on a 422). Never secrets. */
    readonly details?: Record<string, unknown>,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  toBody(): ErrorBody {
    return {
      ...this.details,
      statusCode: this.statusCode,
      error: statusText(this.statusCode),
      message: this.message,
    };
  }
}

export class BadRequestError extends HttpError {
  override name = 'BadRequestError';
  constructor(message: string, details?: Record<string, unknown>, options?: ErrorOptions) {
    super(400, message, details, options);
  }
}

export class UnauthorizedError extends HttpError {
  override name = 'UnauthorizedError';
  constructor(message = 'a valid API key is required in the Authorization header') {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  override name = 'ForbiddenError';
  constructor(message = 'this operation requires the APPLICATION_ADMIN permission') {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  override name = 'ConflictError';
  constructor(message: string, details?: Record<string, unknown>) {
    super(409, message, details);
  }
}

export class PayloadTooLargeError extends HttpError {
  override name = 'PayloadTooLargeError';
  constructor(limitBytes: number) {
    super(413, `request body exceeds the limit of ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super(415, message);
  }
}

export class UnprocessableEntityError extends HttpError {
  override name = 'UnprocessableEntityError';
  constructor(message: string, details?: Record<string, unknown>) {
    super(422, message, details);
  }
}

export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: statusText(statusCode), message };
}
