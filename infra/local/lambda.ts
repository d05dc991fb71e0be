/**
 * Running handler modules in-process the way Lambda would: import once (module scope runs
 * once, like a warm container), call with a Lambda-like context, enforce the timeout, and give
 * the call only the resource variables its catalog access grants (as the CDK function wrapper
 * does in AWS): a handler that touches a table, queue, state machine, function or key it was
 * not granted fails here with "environment variable … is not set", as it would in AWS.
 *
 * All handlers share this process, so the per-function environment is an AsyncLocalStorage
 * scope around each invocation (`withScopedEnvironment`), never a change to `process.env`:
 * invocations overlap, and a shared mutable environment would leak one function's grants into
 * another's call.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import type { FunctionAccess } from '../../shared/catalog/access';
import { grantedVariables, resourceVariables } from '../../shared/catalog/environment';
import type { QueueName } from '../../shared/catalog/queues';
import { withScopedEnvironment } from '../../shared/config/env';

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Where a handler module is imported from: its source under the repository (run through the
 * process's loader, tsx), or, with LOCAL_HANDLER_MODULES, the same path with `.js` under that
 * directory, a build of the sources (the test suite's prebuilt cloud, test/support/prebuilt.ts).
 */
function handlerModuleUrl(modulePath: string): string {
  const prebuilt = process.env.LOCAL_HANDLER_MODULES;
  return pathToFileURL(
    prebuilt ? join(prebuilt, modulePath.replace(/\.ts$/, '.js')) : join(repoRoot, modulePath),
  ).href;
}

// biome-ignore lint/suspicious/noExplicitAny: handler modules have heterogeneous signatures
type AnyHandler = (event: any, context: Context) => Promise<any>;

const modules = new Map<string, Promise<AnyHandler>>();

function loadHandler(modulePath: string): Promise<AnyHandler> {
  let loaded = modules.get(modulePath);
  if (!loaded) {
    loaded = import(handlerModuleUrl(modulePath)).then((mod: { handler?: AnyHandler }) => {
      if (typeof mod.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
      return mod.handler;
    });
    modules.set(modulePath, loaded);
  }
  return loaded;
}

class LambdaTimeoutError extends Error {
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

/** A cataloged function as the local cloud runs it. */
export interface LocalFunction {
  /** Handler module, relative to the repository root. */
  readonly handler: string;
  /** The function's (physical) name, for the context and logs. */
  readonly name: string;
  readonly timeoutSeconds: number;
  /** What the catalog lets it touch. */
  readonly access: FunctionAccess;
  /** The queue it consumes, if it is a queue consumer (it may dead-letter to that queue). */
  readonly consumes?: QueueName;
}

const governed = resourceVariables();

/** The resource variables `fn` may read, with the values the local cloud set for them. */
function scopeFor(fn: LocalFunction) {
  const values: Record<string, string> = {};
  for (const name of grantedVariables(fn.access, fn.consumes)) {
    const value = process.env[name];
    if (value !== undefined) values[name] = value;
  }
  return { governs: governed, values };
}

export async function invoke<T>(fn: LocalFunction, event: unknown): Promise<T> {
  const timeoutMs = fn.timeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await withScopedEnvironment(scopeFor(fn), async () => {
      const handler = await loadHandler(fn.handler);
      return Promise.race([
        handler(event, lambdaContext(fn.name, timeoutMs)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new LambdaTimeoutError(`${fn.name} timed out after ${fn.timeoutSeconds} s`)),
            timeoutMs,
          );
        }),
      ]);
    });
  } finally {
    clearTimeout(timer);
  }
}
