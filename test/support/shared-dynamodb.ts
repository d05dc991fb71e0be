/**
 * One in-memory DynamoDB Local for every in-memory test cloud of a vitest run, instead of a JVM
 * per cloud: a JVM's start cost ~3 CPU-seconds and a run starts about twenty clouds, and their
 * idle JVMs spent CPU beside the one under load. Each cloud keeps its tables under a prefix of
 * its own there and deletes them at stop (`LOCAL_DYNAMODB_ENDPOINT` in infra/local/cloud.ts).
 * Clouds restarted on their state (`durable`, the crash tests) keep a JVM of their own.
 *
 * The tiers' globalSetups (one module instance per project, all in vitest's main process) share
 * it through `globalThis`: the first to set up starts it, the last to tear down stops it. Its
 * endpoint goes into `process.env` before the workers start, so files that start a cloud of
 * their own (`startCloudProcess`) hand it on too.
 */
import { type LocalDynamo, startDynamoDbLocal } from '../../infra/local/dynamodb';
import { freePort } from '../../infra/local/ports';
import { SHARED_DYNAMODB_ENV } from './local-cloud-process';

/**
 * One GC thread: the tiers' clouds and tests need the two cores. (The compilers stay: unlike a
 * cloud's own JVM, this one serves the whole run, where compiled code pays for itself.)
 */
const JAVA_TOOL_OPTIONS = '-XX:+UseSerialGC';

interface Shared {
  users: number;
  dynamo: Promise<LocalDynamo>;
}

const KEY = Symbol.for('causeway.test.sharedDynamoDb');
const holder = globalThis as { [KEY]?: Shared };

/** Starts the shared DynamoDB Local, or counts one more user of the running one. */
export async function acquireSharedDynamoDb(): Promise<void> {
  let shared = holder[KEY];
  if (!shared) {
    shared = { users: 0, dynamo: startDynamoDbLocal(undefined, freePort, JAVA_TOOL_OPTIONS) };
    holder[KEY] = shared;
  }
  shared.users++;
  try {
    process.env[SHARED_DYNAMODB_ENV] = (await shared.dynamo).endpoint;
  } catch (error) {
    if (holder[KEY] === shared) delete holder[KEY];
    throw error;
  }
}

/** The last user stops it (after its cloud stopped). */
export async function releaseSharedDynamoDb(): Promise<void> {
  const shared = holder[KEY];
  if (!shared || --shared.users > 0) return;
  delete holder[KEY];
  delete process.env[SHARED_DYNAMODB_ENV];
  await (await shared.dynamo).stop();
}
