/**
 * The console's API client: openapi-fetch over the types openapi-typescript generated from the
 * served document (shared/openapi/api-types.ts, kept current by a unit test), so a route or
 * schema change that breaks the console fails its typecheck. Same origin: the console is served
 * beside the API (the local gateway; CloudFront in AWS).
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../shared/openapi/api-types';
import { apiKey, signOut } from './session';

/** An API error as the service answers it: `{statusCode, error, message}` plus known extras. */
export interface ApiError {
  statusCode: number;
  error: string;
  message: string;
  [extra: string]: unknown;
}

const auth: Middleware = {
  onRequest({ request }) {
    if (apiKey.value) request.headers.set('Authorization', apiKey.value);
    return request;
  },
  async onResponse({ response }) {
    if (response.status === 401) {
      const body = (await response
        .clone()
        .json()
        .catch(() => null)) as ApiError | null;
      signOut(body?.message ?? 'your API key was not accepted');
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '' });
api.use(auth);

/** The error of a failed call, in the service's shape (a network failure becomes one too). */
export function asApiError(error: unknown, status: number): ApiError {
  if (error && typeof error === 'object' && 'message' in error) return error as ApiError;
  return { statusCode: status, error: 'Error', message: String(error ?? 'request failed') };
}

/** A pasted body: JSON when it looks like JSON, else YAML (the API takes both). */
export function pastedBody(text: string): { text: string; contentType: string } {
  return { text, contentType: /^\s*[{[]/.test(text) ? 'application/json' : 'application/yaml' };
}

/** Raw call for bodies the typed client cannot express (pasted YAML, scripts as text). */
export async function rawCall(
  method: string,
  path: string,
  body?: { text: string; contentType: string },
  accept = 'application/json',
): Promise<{ status: number; text: string; json: unknown }> {
  const headers: Record<string, string> = { Accept: accept };
  if (apiKey.value) headers.Authorization = apiKey.value;
  if (body) headers['Content-Type'] = body.contentType;
  const response = await fetch(path, { method, headers, ...(body ? { body: body.text } : {}) });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (response.status === 401) signOut((json as ApiError | null)?.message ?? 'your API key was not accepted');
  return { status: response.status, text, json };
}
