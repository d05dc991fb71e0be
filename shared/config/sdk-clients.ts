/**
 * Every AWS SDK client in functions, shared code and the local cloud is built without the SDK's
 * logger middleware: the service's own (DynamoDB, SQS, Step Functions and Lambda at module scope
 * in shared/store and shared/integrations, KMS in shared/crypto, and the local cloud's), and those
 * a delivery or a connector builds for a customer's account (STS, SQS, SNS, EventBridge, S3,
 * Redshift). With no logger configured (the service gives its clients none: it logs its own calls
 * through Powertools), that middleware still runs every call's input and output through the
 * command's sensitive-field filters for a logger that discards them: 1.8 % of the test suite's
 * busiest local cloud's CPU, and CPU of every Lambda invocation in AWS too. An architecture test
 * (test/unit/architecture/sdk-client-logging.test.ts) holds every construction to it.
 */
export function withoutSdkLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
