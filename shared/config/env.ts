/**
 * Environment access for functions. Every value is read through a getter that throws a clear
 * error when a required variable is missing, so a misconfigured function fails on its first
 * use instead of calling AWS with `undefined`.
 *
 * Scoped environments: in AWS each function has its own process and its own variables. The
 * local cloud runs every handler in one process, concurrently, so it cannot give each one its
 * own `process.env` (mutating it per call would race between overlapping invocations). Instead
 * it runs each invocation inside `withScopedEnvironment`, an AsyncLocalStorage context that
 * follows the invocation's whole async call tree: while it is active, the variables it
 * *governs* are answered from the scope only (absent = not set), and every other variable
 * from `process.env`. Outside a scope (AWS, the CLI, tests) reads go to `process.env` as usual.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ScopedEnvironment {
  /** The variable names this scope answers for, whether or not it sets them. */
  readonly governs: ReadonlySet<string>;
  readonly values: Readonly<Record<string, string>>;
}

const scoped = new AsyncLocalStorage<ScopedEnvironment>();

/** Runs `fn` (and everything it starts) with `scope` shadowing the variables it governs. */
export function withScopedEnvironment<T>(scope: ScopedEnvironment, fn: () => T): T {
  return scoped.run(scope, fn);
}

function readEnv(name: string): string | undefined {
  const scope = scoped.getStore();
  if (scope?.governs.has(name)) return scope.values[name];
  return process.env[name];
}
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export function requireEnv(name: string): string {
  const value = readEnv(name);
  if (value === undefined || value === '') {
    throw new ConfigurationError(`environment variable ${name} is not set`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = readEnv(name);
  return value === undefined || value === '' ? undefined : value;
}

export function intEnv(name: string, fallback: number): number {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value))
    throw new ConfigurationError(`environment variable ${name} must be an integer`);
  return value;
}

export function boolEnv(name: string, fallback: boolean): boolean {
  const raw = optionalEnv(name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigurationError(`environment variable ${name} must be true or false`);
}

export function intListEnv(name: string, fallback: readonly number[]): number[] {
  const raw = optionalEnv(name);
  if (raw === undefined) return [...fallback];
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isInteger(v) || v < 0)) {
    throw new ConfigurationError(`environment variable ${name} must be a comma-separated list of seconds`);
  }
  return values;
}

export const platformMode = (): 'sandbox' | 'real' =>
  optionalEnv('PLATFORM_MODE') === 'real' ? 'real' : 'sandbox';
