import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per function. Request and response bodies are never logged: they can
 * carry credentials and webhook secrets. Log only ids, statuses and error names.
 */
export const logger = new Logger({ serviceName: 'causeway' });

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
