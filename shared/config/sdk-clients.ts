/**
 * The clients that carry the service's own traffic (DynamoDB, SQS, Step Functions and Lambda, at
 * module scope in shared/store and shared/integrations, and the local cloud's own) are built
 * without the SDK's logger middleware. With no logger configured (the service gives its clients
 * none: it logs its own calls through Powertools), that middleware still runs every call's input
 * and output through the command's sensitive-field filters for a logger that discards them: 1.8 %
 * of the test suite's busiest local cloud's CPU, and CPU of every Lambda invocation in AWS too.
 */
export function withoutSdkLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
