/**
 * Helpers for integration tests: an HTTP client for the local gateway (every answer checked
 * against the OpenAPI document) and a way to point the
 * shared modules (store, auth, publishers) at the local cloud from inside a test worker.
 */
import { inject } from 'vitest';
import type { Endpoints } from '../../infra/local/cloud';
import { clientEnvironment } from '../../infra/local/env';
import { expectDocumented } from './contract';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Raw body (sent as-is); overrides `body`. */
  raw?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A local cloud as the helpers below use it. */
interface CloudRef {
  endpoints: Endpoints;
  adminApiKey: string;
  stateDir: string;
  logFile: string;
}

let ownCloud: CloudRef | undefined;
let applied = false;

/**
 * Points this file's helpers (`call`, `createKey`, the shared modules, the log readers) at a cloud
 * the file started itself instead of its tier's. For a file whose load would hold up the files
 * running beside it on the tier's cloud (thousands of deliveries through one queue). Call it
 * before any other helper: shared modules build their SDK clients from the environment on import.
 */
export function useOwnCloud(cloud: CloudRef): void {
  if (applied) throw new Error("useOwnCloud: this file's helpers already use the tier's cloud");
  ownCloud = cloud;
}

function cloud(): CloudRef {
  return (
    ownCloud ?? {
      endpoints: inject('endpoints'),
      adminApiKey: inject('adminApiKey'),
      stateDir: inject('stateDir'),
      logFile: inject('logFile'),
    }
  );
}

export function baseUrl(): string {
  return cloud().endpoints.gateway;
}

export function adminKey(): string {
  return cloud().adminApiKey;
}

/** The cloud's log file (its handlers' JSON lines). */
export function logFile(): string {
  return cloud().logFile;
}

// biome-ignore lint/suspicious/noExplicitAny: test convenience: bodies are asserted field by field
export async function call<T = any>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? adminKey() : options.key;
  if (key !== null) headers.authorization = key;
  let body: string | Uint8Array | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(`${baseUrl()}${path}`, { method, headers, body });
  const text = await response.text();
  // Every answer must be one the OpenAPI document states for this request (test/support/contract.ts).
  expectDocumented({
    method,
    path,
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
  });
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Sets this worker's environment so shared modules reach the local cloud's emulators. */
export function useLocalCloudEnv(): void {
  if (applied) return;
  const { endpoints, stateDir } = cloud();
  Object.assign(process.env, clientEnvironment(endpoints), {
    LOCAL_MASTER_KEY_FILE: `${stateDir}/master.key`,
    SANDBOX_DIR: `${stateDir}/sandbox`,
  });
  applied = true;
}

/** Creates a principal and returns its API key (through the same module the CLI uses). */
export async function createKey(name: string, admin = false): Promise<{ userId: number; apiKey: string }> {
  useLocalCloudEnv();
  const { createPrincipalWithKey } = await import('../../shared/auth/keys');
  const issued = await createPrincipalWithKey(name, admin ? ['APPLICATION_ADMIN'] : []);
  return { userId: issued.userId, apiKey: issued.apiKey };
}

/** Revokes every key of the user as `keys revoke` does (their webhooks are disabled too). */
export async function revokeKeys(
  userId: number,
): Promise<{ revokedKeys: number; disabledWebhooks: number[] }> {
  useLocalCloudEnv();
  const { revokeKeys: revoke } = await import('../../shared/service/revoke-keys');
  return revoke(userId);
}

/**
 * Polls `probe` every 100 ms until `accept` holds and returns that value. `timeoutMs` guards
 * against a hang only (size it at ten times what a quiet machine needs): when it passes, this
 * throws with the last value seen, never hands back a value `accept` refused.
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) {
      throw new Error(`eventually: not accepted within ${timeoutMs / 1000} s (last: ${shown(last)})`);
    }
    await new Promise((r) => setTimeout(r, 100));
    last = await probe();
  }
  return last;
}

/** A probed value for an error message: JSON, cut to a readable length. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} characters)` : text;
}

/**
 * Polls `probe` until `accept` holds, however long that takes on a loaded machine. The only
 * bound is a hang guard: it fails when `progress` of the probed value has not changed for
 * `stallMs` (nothing moved at all), never because a deadline for a quiet machine passed.
 */
export async function untilDone<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  options: { progress?: (value: T) => unknown; stallMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const progress = options.progress ?? ((value: T) => value);
  const stallMs = options.stallMs ?? 120_000;
  let last = await probe();
  let mark = JSON.stringify(progress(last));
  let movedAt = Date.now();
  while (!accept(last)) {
    if (Date.now() - movedAt > stallMs) {
      throw new Error(`${options.what ?? 'waiting'}: no progress for ${stallMs / 1000} s (last: ${mark})`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
    last = await probe();
    const now = JSON.stringify(progress(last));
    if (now !== mark) {
      mark = now;
      movedAt = Date.now();
    }
  }
  return last;
}
