/**
 * The sandbox AWS account of the local stage: a customer's account on one machine (issue 40),
 * with another account id than the service's. Its roles and event buses are kept in files under
 * `STATE_DIR/sandbox/aws` (written by `sandbox aws create-role|create-bus`, read by the front on
 * each call); its queues and topics live in an SQS/SNS emulator of its own.
 *
 * What the sandbox hands out is AWS-shaped (`https://sqs.us-east-1.amazonaws.com/<account>/q`,
 * `arn:aws:sns:us-east-1:<account>:t`): only the local stage maps those to its emulator.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sandbox customer's account id (the service's own local account is 000000000000). */
export const SANDBOX_ACCOUNT = '000000000002';
/** The account the local stage's service runs in (fauxqs's fixed account). */
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

interface Registry {
  roles: Record<string, SandboxRole>;
  buses: Record<string, SandboxBus>;
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

/** The files of the sandbox account under `dir` (`STATE_DIR/sandbox/aws`). */
export class SandboxAccountRegistry {
  constructor(readonly dir: string) {}

  private get file(): string {
    return join(this.dir, 'account.json');
  }

  read(): Registry {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<Registry>;
      return { roles: parsed.roles ?? {}, buses: parsed.buses ?? {} };
    } catch {
      return { roles: {}, buses: {} };
    }
  }

  private write(registry: Registry): void {
    mkdirSync(this.dir, { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(registry, null, 2)}\n`);
    renameSync(temp, this.file);
  }

  role(roleArn: string): SandboxRole | undefined {
    return this.read().roles[roleArn];
  }

  bus(nameOrArn: string): SandboxBus | undefined {
    const buses = this.read().buses;
    return buses[nameOrArn] ?? Object.values(buses).find((b) => b.eventBusArn === nameOrArn);
  }

  putRole(role: SandboxRole): void {
    const registry = this.read();
    registry.roles[role.roleArn] = role;
    this.write(registry);
  }

  putBus(bus: SandboxBus): void {
    const registry = this.read();
    registry.buses[bus.name] = bus;
    this.write(registry);
  }
}
