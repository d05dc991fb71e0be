/**
 * Helpers for the integrations suite: a call wrapper that keeps every response body (for the
 * redaction checks), status polling, and direct store access for arranging states that a
 * running workflow would otherwise leave only for milliseconds.
 */
import { expect } from 'vitest';
import { stringify } from 'yaml';
import type { SqlPayload } from '../../../shared/platforms';
import { type ApiResponse, type CallOptions, call, eventually, useLocalCloudEnv } from '../../support/api';

export const seen: string[] = [];

// biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
export async function api<T = any>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const response = await call<T>(method, path, options);
  seen.push(response.text);
  return response;
}

export function yamlBody(body: unknown): CallOptions {
  return { raw: stringify(body), contentType: 'application/yaml' };
}

export async function statusOf(id: string | number): Promise<string | undefined> {
  const r = await api<{ id: number; status: string }>('GET', `/integrations/${id}/status`);
  return r.body?.status;
}

const SETTLED = new Set([
  'enabled',
  'recurringValidationError',
  'createError',
  'editError',
  'deleteError',
  'deleted',
  'disabled',
]);

/**
 * Waits until the integration leaves its in-flight status, then returns the status it reached
 * (`timeoutMs` guards against a hang only).
 */
export async function settle(id: string | number, timeoutMs = 30_000): Promise<string | undefined> {
  return eventually(
    () => statusOf(id),
    (s) => s !== undefined && SETTLED.has(s),
    timeoutMs,
  );
}

export async function expectSettles(id: string | number, expected: string): Promise<void> {
  expect(await settle(id)).toBe(expected);
}

/** Fails if any recorded response body contains any of the given secrets. */
export function expectNoSecretsIn(bodies: readonly string[], secrets: readonly string[]): void {
  for (const secret of secrets) {
    const leaked = bodies.find((b) => b.includes(secret));
    expect(leaked === undefined, `secret ${secret.slice(0, 6)}… appeared in a response`).toBe(true);
  }
}

/** Direct access to the integrations table, for arranging states deterministically. */
export async function store() {
  useLocalCloudEnv();
  const [{ documentClient }, { tableName }, { nextId }] = await Promise.all([
    import('../../../shared/store/clients'),
    import('../../../shared/store/tables'),
    import('../../../shared/store/counters'),
  ]);
  const { GetCommand, PutCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  return {
    nextId: () => nextId('integrations'),
    async put(item: Record<string, unknown>) {
      await documentClient.send(new PutCommand({ TableName: tableName('integrations'), Item: item }));
    },
    async get(id: number) {
      const out = await documentClient.send(
        new GetCommand({ TableName: tableName('integrations'), Key: { id }, ConsistentRead: true }),
      );
      return out.Item;
    },
    async setStatus(id: number, status: string) {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName('integrations'),
          Key: { id },
          UpdateExpression: 'SET #s = :s, #v = #v + :one',
          ExpressionAttributeNames: { '#s': 'status', '#v': 'version' },
          ExpressionAttributeValues: { ':s': status, ':one': 1 },
        }),
      );
    },
    async rawItemText(id: number) {
      const out = await documentClient.send(
        new GetCommand({ TableName: tableName('integrations'), Key: { id }, ConsistentRead: true }),
      );
      return JSON.stringify(out.Item);
    },
  };
}

/**
 * Does what an operator does before creating a manual SQL integration: runs the setup script
 * (as the script endpoints render it) against the sandbox host.
 */
export async function runManualSetup(payload: Record<string, unknown>): Promise<void> {
  useLocalCloudEnv();
  const [{ hostOf, isSqlType }, { IntegrationPayloadSchema }, { scriptFor }, { runOnSandbox }] =
    await Promise.all([
      import('../../../shared/platforms'),
      import('../../../shared/platforms/payload-schema'),
      import('../../../shared/platforms/scripts'),
      import('../../../shared/platforms/sandbox/run-script'),
    ]);
  const parsed = IntegrationPayloadSchema.parse(payload);
  if (!isSqlType(parsed.type)) throw new Error('not a SQL payload');
  const sql = parsed as SqlPayload;
  // Both manual steps, as the operator runs them (initial-create says so when a type has one step).
  await runOnSandbox(sql.type, hostOf(sql), await scriptFor('initial-create', sql));
  await runOnSandbox(sql.type, hostOf(sql), await scriptFor('create', sql));
}
