/**
 * Helpers for the hardening suite: an HTTP client for any gateway (the suite's shared cloud or
 * a test's own; every answer checked against the OpenAPI document), the error-shape check, table snapshots taken with Scan through the local
 * endpoints, and principals created in a given cloud.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import type { Endpoints } from '../../infra/local/cloud';
import { expectDocumented } from '../support/contract';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  raw?: string | Buffer;
  contentType?: string;
}

export async function request(
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = options.key;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { method, headers, body });
  } catch (error) {
    // A pooled keep-alive socket the server closed at the same moment: the request never
    // reached the gateway, so sending it once more is safe.
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET' && code !== 'EPIPE') throw error;
    res = await fetch(`${base}${path}`, { method, headers, body });
  }
  const text = await res.text();
  // Every answer must be one the OpenAPI document states for this request (test/support/contract.ts).
  expectDocumented({ method, path, status: res.status, contentType: res.headers.get('content-type'), text });
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** The service's error shape: `{statusCode, error, message}` with statusCode = the HTTP status. */
export function expectErrorShape(reply: Reply, context: string): void {
  expect(reply.body, `${context}: error body is JSON (${reply.text.slice(0, 200)})`).toBeTypeOf('object');
  expect(reply.body?.statusCode, `${context}: statusCode`).toBe(reply.status);
  expect(reply.body?.error, `${context}: error`).toBeTypeOf('string');
  expect(reply.body?.message, `${context}: message`).toBeTypeOf('string');
}

export interface TableSnapshot {
  [table: string]: { count: number; hash: string };
}

/** Item count and a content hash of every table (items sorted by their canonical JSON). */
export async function snapshotTables(
  endpoints: Pick<Endpoints, 'dynamodb' | 'region' | 'tables'>,
): Promise<TableSnapshot> {
  const client = new DynamoDBClient({
    endpoint: endpoints.dynamodb,
    region: endpoints.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const snapshot: TableSnapshot = {};
    await Promise.all(
      Object.entries(endpoints.tables).map(async ([logical, physical]) => {
        const rows: string[] = [];
        for await (const page of paginateScan({ client }, { TableName: physical, ConsistentRead: true })) {
          for (const item of page.Items ?? []) rows.push(canonical(item));
        }
        rows.sort();
        snapshot[logical] = {
          count: rows.length,
          hash: createHash('sha256').update(rows.join('\n')).digest('hex'),
        };
      }),
    );
    return snapshot;
  } finally {
    client.destroy();
  }
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** Runs `jobs` with at most `concurrency` in flight. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  job: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await job(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
