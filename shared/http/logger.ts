import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per function. Request and response bodies are never logged: they can
 * carry credentials and webhook secrets. Log only ids, statuses and error names.
 */
export const logger = new Logger({ serviceName: 'causeway' });
