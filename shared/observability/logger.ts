/**
 * One structured logger per function: a JSON line per entry, in the shape Powertools Logger
 * wrote (`level`, `message`, `timestamp`, `service`, `xray_trace_id`, then the entry's own keys),
 * INFO on stdout, WARN and ERROR on stderr, filtered by `POWERTOOLS_LOG_LEVEL` (or `LOG_LEVEL`,
 * or Lambda's `AWS_LAMBDA_LOG_LEVEL`; INFO by default).
 *
 * Why not Powertools Logger, which this replaced (ADR 0017, issue 37): we used three of its
 * methods, and importing it loads `node:crypto` (for debug-log sampling) and builds a console
 * on stdout at every function's init, about 9 ms of CPU over a ~25 ms Node start for the
 * functions that build no SDK client; no option avoids the import, and a bundled module's
 * built-in imports load at init even when the module is imported lazily. This module imports
 * nothing and touches no stream until the first entry.
 *
 * Request and response bodies are never logged: they can carry credentials and webhook secrets.
 * Log only ids, statuses and error names.
 */
import { optionalEnv } from '../config/env';

const LEVELS = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, CRITICAL: 50, SILENT: 60 } as const;
type Level = keyof typeof LEVELS;

function threshold(): number {
  const name = (
    optionalEnv('POWERTOOLS_LOG_LEVEL') ??
    optionalEnv('LOG_LEVEL') ??
    optionalEnv('AWS_LAMBDA_LOG_LEVEL') ??
    'INFO'
  )
    .trim()
    .toUpperCase();
  return name in LEVELS ? LEVELS[name as Level] : LEVELS.INFO;
}

/** Errors among an entry's values are written as their name, message and stack. */
function serialize(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function write(
  level: 'INFO' | 'WARN' | 'ERROR',
  message: string,
  attributes?: Record<string, unknown>,
): void {
  if (LEVELS[level] < threshold()) return;
  const trace = optionalEnv('_X_AMZN_TRACE_ID')?.match(/Root=([^;]+)/)?.[1];
  const line = JSON.stringify(
    {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: optionalEnv('POWERTOOLS_SERVICE_NAME') ?? 'causeway',
      ...(trace ? { xray_trace_id: trace } : {}),
      ...attributes,
    },
    serialize,
  );
  (level === 'INFO' ? process.stdout : process.stderr).write(`${line}\n`);
}

export interface Logger {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

export const logger: Logger = {
  info: (message, attributes) => write('INFO', message, attributes),
  warn: (message, attributes) => write('WARN', message, attributes),
  error: (message, attributes) => write('ERROR', message, attributes),
};

/**
 * A loggable description of an unexpected error: its name and a message with URL credentials
 * and key-like values removed (driver errors sometimes quote connection strings).
 */
export function describeError(error: unknown): { errorName: string; errorMessage: string } {
  const err = error instanceof Error ? error : new Error(String(error));
  const message = err.message
    .replace(/\/\/[^/\s:@]+:[^@\s]+@/g, '//[REDACTED]@')
    .replace(/((?:password|pwd|secret|token|key)\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s;,&]+)/gi, '$1[REDACTED]')
    .slice(0, 500);
  return { errorName: err.name, errorMessage: message };
}
