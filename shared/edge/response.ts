/**
 * The shape of every answer: JSON with the security headers, and the error body
 * `{statusCode, error, message, ...details}`. Plain functions with no dependencies, so a function
 * that only answers (the `$default` route) bundles neither zod nor the middy stack
 * (`docs/benchmarks.md`, figure 5). Which error maps to which status is `./errors.ts`.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type ApiResponse = APIGatewayProxyStructuredResultV2;

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

function statusText(statusCode: number): string {
  return STATUS_TEXT[statusCode] ?? 'Error';
}

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  [detail: string]: unknown;
}

export function errorBody(statusCode: number, message: string, details?: Record<string, unknown>): ErrorBody {
  return { ...details, statusCode, error: statusText(statusCode), message };
}

export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): ApiResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...SECURITY_HEADERS, ...headers },
    body: JSON.stringify(body),
  };
}
