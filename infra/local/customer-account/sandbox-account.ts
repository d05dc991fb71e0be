/**
 * Starts the local stage's sandbox AWS account (issue 40): its own SQS/SNS emulator (so its
 * queues are never the service's) and the front that checks signatures, sessions and roles
 * before any call reaches it (`./front.ts`).
 */
import { join } from 'node:path';
import { startSqs } from '../sqs';
import { SandboxAccountRegistry } from './account';
import { startSandboxAccountFront } from './front';

export interface SandboxAccount {
  /** Where customer clients (STS, SQS, SNS, EventBridge) send their calls. */
  endpoint: string;
  /** The account's SQS/SNS emulator itself, which the operator CLI uses as the account's owner. */
  emulator: string;
  /** AssumeRole calls answered so far. */
  assumeRoleCalls(): number;
  stop(): Promise<void>;
}

export async function startSandboxAccount(options: {
  /** `STATE_DIR/sandbox/aws`: the account's roles, buses and trail. */
  dir: string;
  /** Keep queues and messages in `dir` across restarts (otherwise in memory). */
  durable: boolean;
  /** The stage's delivery principal, the only role sandbox roles trust. */
  principalArn: string;
}): Promise<SandboxAccount> {
  const emulator = await startSqs(options.durable ? join(options.dir, 'sqs') : undefined);
  try {
    const front = await startSandboxAccountFront({
      registry: new SandboxAccountRegistry(options.dir),
      emulator: emulator.endpoint,
      principalArn: options.principalArn,
    });
    return {
      endpoint: front.endpoint,
      emulator: emulator.endpoint,
      assumeRoleCalls: () => front.sts.calls,
      async stop() {
        await front.stop();
        await emulator.stop();
      },
    };
  } catch (error) {
    await emulator.stop();
    throw error;
  }
}
