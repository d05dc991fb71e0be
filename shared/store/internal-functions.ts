/**
 * Synchronous calls to the cataloged internal functions (Lambda Invoke; the local cloud
 * serves the same API). Used where a dependency is too heavy for an API bundle or needs
 * permissions an API function should not hold: the platform connector (database drivers)
 * and the webhook sender (HTTP client, webhook secrets).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { functionEnvVar, type InternalFunctionName } from '../catalog/functions';
import { requireEnv } from '../config/env';
import { withoutSdkLogging } from '../config/sdk-clients';
import { RateLimitedError } from '../errors';

export class InternalInvocationError extends Error {
  override name = 'InternalInvocationError';
}

const lambda = withoutSdkLogging(new LambdaClient({}));

/** Calls the function and waits for its answer; its concurrency limit reached is a 429 for the caller. */
export async function invokeInternal<T>(name: InternalFunctionName, payload: unknown): Promise<T> {
  const out = await lambda
    .send(
      new InvokeCommand({
        FunctionName: requireEnv(functionEnvVar(name)),
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      }),
    )
    .catch((error: unknown) => {
      if ((error as Error).name === 'TooManyRequestsException')
        throw new RateLimitedError(`the ${name} function is busy; try again shortly`, 1, { cause: error });
      throw error;
    });
  if (out.FunctionError) {
    // The function's own error text is not passed on (it could quote remote details).
    throw new InternalInvocationError(`the ${name} function failed (${out.FunctionError})`);
  }
  return JSON.parse(out.Payload ? new TextDecoder().decode(out.Payload) : 'null') as T;
}
