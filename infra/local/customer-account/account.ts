/**
 * The sandbox AWS account of the local stage: a customer's account on one machine (issue 40),
 * with another account id than the service's. Its roles and event buses are kept in files under
 * `STATE_DIR/sandbox/aws` (written by `sandbox aws create-role|create-bus`, read by the front on
 * each call); its queues and topics live in an SQS/SNS emulator of its own.
 *
 * What the sandbox hands out is AWS-shaped (`https://sqs.us-east-1.amazonaws.com/<account>/q`,
 * `arn:aws:sns:us-east-1:<account>:t`): only the local stage maps those to its emulator.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sandbox customer's account id (the service's own local account is 000000000000). */
export const SANDBOX_ACCOUNT = '000000000002';
/** The account the local stage's service runs in (fauxqs's fixed account): every local AWS-shaped ARN of the service names it. */
export const SERVICE_ACCOUNT = '000000000000';
export const SANDBOX_REGION = 'us-east-1';

/** The actions a sandbox role allows unless `--deny` names them. */
export const SEND_ACTIONS = ['sqs:SendMessage', 'sns:Publish', 'events:PutEvents'] as const;
export type SendAction = (typeof SEND_ACTIONS)[number];

export interface SandboxRole {
  roleArn: string;
  name: string;
  /** The principal the role trusts (the stage's delivery principal). */
  trustedPrincipal: string;
  externalId: string;
  allowed: SendAction[];
}

export interface SandboxBus {
  eventBusArn: string;
  name: string;
  /** Every event put on the bus is sent to this queue of the sandbox account (its name). */
  queue: string;
}

export const queueUrlOf = (name: string) =>
  `https://sqs.${SANDBOX_REGION}.amazonaws.com/${SANDBOX_ACCOUNT}/${name}`;
export const queueArnOf = (name: string) => `arn:aws:sqs:${SANDBOX_REGION}:${SANDBOX_ACCOUNT}:${name}`;
export const topicArnOf = (name: string) => `arn:aws:sns:${SANDBOX_REGION}:${SANDBOX_ACCOUNT}:${name}`;
export const busArnOf = (name: string) =>
  `arn:aws:events:${SANDBOX_REGION}:${SANDBOX_ACCOUNT}:event-bus/${name}`;
export const roleArnOf = (name: string) => `arn:aws:iam::${SANDBOX_ACCOUNT}:role/${name}`;

/** Names as AWS allows them for queues (80 characters, `.fifo` included), topics, buses and roles. */
export const NAME_RULES = {
  queue: /^[A-Za-z0-9_-]{1,75}(\.fifo)?$/,
  topic: /^[A-Za-z0-9_-]{1,251}(\.fifo)?$/,
  bus: /^[A-Za-z0-9._-]{1,256}$/,
  role: /^[\w+=,.@-]{1,64}$/,
};

/**
 * The files of the sandbox account under `dir` (`STATE_DIR/sandbox/aws`): one file per role
 * (`roles/<name>.json`) and per bus (`buses/<name>.json`), each written whole and renamed into
 * place, so concurrent `create-role`/`create-bus` calls (from several processes, or one test's
 * parallel setup) never lose one another's writes.
 */
export class SandboxAccountRegistry {
  constructor(readonly dir: string) {}

  private read<T>(kind: 'roles' | 'buses', name: string): T | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, kind, `${name}.json`), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  private write(kind: 'roles' | 'buses', name: string, value: unknown): void {
    const dir = join(this.dir, kind);
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `.${name}.${process.pid}.${randomUUID()}.tmp`);
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(temp, join(dir, `${name}.json`));
  }

  role(roleArn: string): SandboxRole | undefined {
    const name = roleArn.slice(roleArn.lastIndexOf('/') + 1);
    const role = NAME_RULES.role.test(name) ? this.read<SandboxRole>('roles', name) : undefined;
    return role?.roleArn === roleArn ? role : undefined;
  }

  bus(nameOrArn: string): SandboxBus | undefined {
    const name = nameOrArn.startsWith('arn:')
      ? nameOrArn.slice(nameOrArn.indexOf(':event-bus/') + 11)
      : nameOrArn;
    const bus = NAME_RULES.bus.test(name) ? this.read<SandboxBus>('buses', name) : undefined;
    return bus && (bus.name === nameOrArn || bus.eventBusArn === nameOrArn) ? bus : undefined;
  }

  putRole(role: SandboxRole): void {
    this.write('roles', role.name, role);
  }

  putBus(bus: SandboxBus): void {
    this.write('buses', bus.name, bus);
  }
}
