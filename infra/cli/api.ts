/**
 * CLI commands that go through the HTTP API, with the typed client generated from the OpenAPI
 * document (openapi-typescript types in shared/openapi/api-types.ts + openapi-fetch): a path,
 * parameter or body the document does not allow is a compile error here.
 *
 *   api me                                      the principal behind the key
 *   api status --id ID                          an integration's status
 *   api history [--page-size N] [--include-global]   one page of webhook history
 *
 * The key comes from `--key KEY` or `CAUSEWAY_API_KEY`; the URL from the target (./target.ts).
 */
import { parseArgs } from 'node:util';
import createClient from 'openapi-fetch';
import type { paths } from '../../shared/openapi/api-types';
import { API_URL_ENV } from './target';

export class ApiUsageError extends Error {
  override name = 'ApiUsageError';
}

function apiClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { authorization: apiKey } });
}

export type ApiClient = ReturnType<typeof apiClient>;

/** The typed client for the target, with the key from `--key` or `CAUSEWAY_API_KEY`. */
export function targetClient(key: string | undefined, command: string): ApiClient {
  const apiKey = key ?? process.env.CAUSEWAY_API_KEY;
  if (!apiKey) throw new ApiUsageError(`${command} commands need --key KEY (or CAUSEWAY_API_KEY)`);
  const baseUrl = process.env[API_URL_ENV];
  if (!baseUrl) throw new Error(`no API URL for the target (${API_URL_ENV})`);
  return apiClient(baseUrl, apiKey);
}

/** The answer's data; an error answer throws, naming the status. */
export function answerOf<T>(answer: {
  data?: T;
  error?: { error: string; message: string };
  response: Response;
}): T {
  if (answer.error)
    throw new Error(`${answer.response.status} ${answer.error.error}: ${answer.error.message}`);
  return answer.data as T;
}

/** Runs one `api` command and returns what it answered (an error answer throws, naming the status). */
export async function apiCommand(argv: string[]): Promise<unknown> {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      key: { type: 'string' },
      id: { type: 'string' },
      'page-size': { type: 'string' },
      'include-global': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const client = targetClient(values.key, 'api');
  const answer = await (async () => {
    switch (sub) {
      case 'me':
        return client.GET('/me');
      case 'status': {
        const id = Number(values.id);
        if (!Number.isSafeInteger(id) || id <= 0)
          throw new ApiUsageError('api status needs --id ID (a positive integer)');
        return client.GET('/integrations/{id}/status', { params: { path: { id } } });
      }
      case 'history': {
        const pageSize = values['page-size'] === undefined ? undefined : Number(values['page-size']);
        return client.GET('/webhooks/history', {
          params: { query: { pageSize, includeGlobal: values['include-global'] } },
        });
      }
      default:
        throw new ApiUsageError(`unknown api command "${sub ?? ''}"`);
    }
  })();
  return answerOf<unknown>(answer);
}
