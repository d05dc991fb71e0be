/**
 * Watching the DynamoDB calls a piece of the service's code makes through the service's own client
 * (shared/store/clients.ts): a middleware added for the call and removed after it. Nothing is
 * replaced; every request still reaches the local cloud's DynamoDB. Import it after
 * `useLocalCloudEnv()`, in the same module context as the code watched.
 */

/**
 * Runs `run`, telling `onCall` each DynamoDB call it made as it ends: the command's name and its
 * output (undefined for a call that failed).
 */
export async function watchDynamoDbCalls(
  run: () => Promise<unknown>,
  onCall: (commandName: string, output: unknown) => void,
): Promise<void> {
  const { dynamodb } = await import('../../shared/store/clients');
  const name = `watchCalls${Math.random().toString(36).slice(2)}`;
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      let output: unknown;
      try {
        const result = await next(args);
        output = result.output;
        return result;
      } finally {
        // A refused call (a condition that failed, say) is a call too: its output is undefined.
        onCall(String(context.commandName), output);
      }
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    dynamodb.middlewareStack.remove(name);
  }
}

/** What `run` answered, and the DynamoDB operations it sent, by command name, in the order they answered. */
export async function dynamoDbOperationsOf<T>(
  run: () => Promise<T>,
): Promise<{ result: T; operations: string[] }> {
  const operations: string[] = [];
  let result: T | undefined;
  await watchDynamoDbCalls(
    async () => {
      result = await run();
    },
    (commandName) => operations.push(commandName),
  );
  return { result: result as T, operations };
}
