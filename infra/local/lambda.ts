/**
 * Running handler modules in-process the way Lambda would: import once (module scope runs
 * once, like a warm container), call with a Lambda-like context, enforce the timeout.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

const repoRoot = join(import.meta.dirname, '..', '..');

// biome-ignore lint/suspicious/noExplicitAny: handler modules have heterogeneous signatures
export type AnyHandler = (event: any, context: Context) => Promise<any>;

const modules = new Map<string, Promise<AnyHandler>>();

export function loadHandler(modulePath: string): Promise<AnyHandler> {
  let loaded = modules.get(modulePath);
  if (!loaded) {
    loaded = import(pathToFileURL(join(repoRoot, modulePath)).href).then((mod: { handler?: AnyHandler }) => {
      if (typeof mod.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
      return mod.handler;
    });
    modules.set(modulePath, loaded);
  }
  return loaded;
}

export class LambdaTimeoutError extends Error {
  override name = 'Sandbox.Timedout';
}

export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export async function invoke<T>(
  modulePath: string,
  functionName: string,
  event: unknown,
  timeoutSeconds: number,
): Promise<T> {
  const handler = await loadHandler(modulePath);
  const timeoutMs = timeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      handler(event, lambdaContext(functionName, timeoutMs)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new LambdaTimeoutError(`${functionName} timed out after ${timeoutSeconds} s`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
