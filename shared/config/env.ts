/**
 * Environment access for functions. Every value is read through a getter that throws a clear
 * error when a required variable is missing, so a misconfigured function fails on its first
 * use instead of calling AWS with `undefined`.
 */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new ConfigurationError(`environment variable ${name} is not set`);
  }
  return value;
}

export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
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

export const stageName = (): string => optionalEnv('CAUSEWAY_STAGE') ?? 'local';
export const platformMode = (): 'sandbox' | 'real' =>
  optionalEnv('PLATFORM_MODE') === 'real' ? 'real' : 'sandbox';
