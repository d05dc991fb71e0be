/**
 * A local Step Functions endpoint: the AWS JSON protocol subset our functions use
 * (StartExecution, DescribeExecution, ListExecutions), backed by `aws-local-stepfunctions`.
 * Every Task state is mapped to its handler through the workflow catalog; a definition with a
 * Task that cannot be mapped is refused at start-up, so nothing ever calls real AWS Lambda.
 *
 * Executions are durable like Standard workflows: each is written to the state directory when
 * it starts and when it ends, and executions still running when the process died are run
 * again from the start on the next start-up (task handlers are idempotent).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';

type RunOptions = NonNullable<Parameters<StateMachine['run']>[1]>;
type LocalHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type JSONValue = Awaited<ReturnType<LocalHandlers[string]>>;

import { type WorkflowDef, workflows } from '../../shared/catalog/workflows';
import {
  type AslDefinition,
  mappingProblems,
  readDefinitionText,
  substitute,
  taskStates,
} from '../workflows/definition';
import { invoke } from './lambda';

export interface ExecutionRecord {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'ABORTED';
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  startDate: number;
  stopDate?: number;
}

export interface LocalStepFunctionsOptions {
  stateDir: string;
  prefix: string;
  /** Milliseconds every Retry waits locally (keeps local workflows well under 5 s). */
  retryIntervalMs: number;
  onExecutionEnd?: (record: ExecutionRecord) => void;
}

interface LoadedMachine {
  def: WorkflowDef;
  arn: string;
  machine: StateMachine;
  handlers: LocalHandlers;
  retryOverrides: Record<string, number>;
}

function stateMachineArn(prefix: string, name: string): string {
  return `arn:aws:states:us-east-1:000000000000:stateMachine:${prefix}-${name}`;
}

export class LocalStepFunctions {
  private server: Server | undefined;
  private readonly machines = new Map<string, LoadedMachine>();
  private readonly executions = new Map<string, ExecutionRecord>();
  private readonly running = new Set<Promise<void>>();
  private readonly dir: string;
  private stopped = false;

  constructor(private readonly options: LocalStepFunctionsOptions) {
    this.dir = join(options.stateDir, 'executions');
    mkdirSync(this.dir, { recursive: true });
    for (const def of workflows as readonly WorkflowDef[]) this.load(def);
  }

  private load(def: WorkflowDef): void {
    const text = readDefinitionText(def);
    const raw = JSON.parse(text) as AslDefinition;
    const problems = mappingProblems(def, raw);
    if (problems.length > 0) throw new Error(`workflow ${def.name}: ${problems.join('; ')}`);
    const fakeArns = Object.fromEntries(
      Object.keys(def.tasks).map((v) => [
        v,
        `arn:aws:lambda:us-east-1:000000000000:function:${this.options.prefix}-${v}`,
      ]),
    );
    const definition = JSON.parse(substitute(text, fakeArns)) as AslDefinition;
    const handlers: LoadedMachine['handlers'] = {};
    const retryOverrides: Record<string, number> = {};
    for (const task of taskStates(raw)) {
      const spec = def.tasks[task.variable as string];
      if (!spec) throw new Error(`workflow ${def.name}: Task ${task.state} is not mapped`);
      const functionName = `${this.options.prefix}-${task.variable}`;
      handlers[task.state] = (input) =>
        invoke<JSONValue>(
          { handler: spec.handler, name: functionName, timeoutSeconds: spec.timeoutSeconds, access: spec },
          input,
        );
      retryOverrides[task.state] = this.options.retryIntervalMs;
    }
    // biome-ignore lint/suspicious/noExplicitAny: the library's definition type is stricter than our parsed JSON
    const machine = new StateMachine(definition as any, {
      validationOptions: { checkPaths: true, checkArn: true },
    });
    this.machines.set(stateMachineArn(this.options.prefix, def.name), {
      def,
      arn: stateMachineArn(this.options.prefix, def.name),
      machine,
      handlers,
      retryOverrides,
    });
  }

  arns(): Record<string, string> {
    return Object.fromEntries([...this.machines.values()].map((m) => [m.def.name, m.arn]));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: Error) =>
        reply(res, 500, { __type: 'InternalFailure', message: error.message }),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('no address');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Re-runs executions that were RUNNING when the previous process stopped. */
  resumeInterrupted(): void {
    for (const file of readdirSync(this.dir)) {
      if (!file.endsWith('.json')) continue;
      const record = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as ExecutionRecord;
      this.executions.set(record.executionArn, record);
      if (record.status === 'RUNNING') {
        const machine = this.machines.get(record.stateMachineArn);
        if (machine) this.run(machine, record);
      }
    }
  }

  private persist(record: ExecutionRecord): void {
    const file = join(this.dir, `${record.name}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(record));
    renameSync(`${file}.tmp`, file);
  }

  startExecution(stateMachineArnValue: string, input: string, name?: string): ExecutionRecord {
    const machine = this.machines.get(stateMachineArnValue);
    if (!machine)
      throw new ApiError(
        400,
        'StateMachineDoesNotExist',
        `State machine does not exist: ${stateMachineArnValue}`,
      );
    const executionName = name ?? randomUUID();
    const executionArn = `${stateMachineArnValue.replace(':stateMachine:', ':execution:')}:${executionName}`;
    const existing = this.executions.get(executionArn);
    if (existing) {
      if (existing.input === input) return existing; // idempotent like AWS for the same name and input
      throw new ApiError(400, 'ExecutionAlreadyExists', `Execution already exists: ${executionArn}`);
    }
    JSON.parse(input); // InvalidExecutionInput surfaces as a 400 via the caller
    const record: ExecutionRecord = {
      executionArn,
      stateMachineArn: stateMachineArnValue,
      name: executionName,
      status: 'RUNNING',
      input,
      startDate: Date.now() / 1000,
    };
    this.executions.set(executionArn, record);
    this.persist(record);
    this.run(machine, record);
    return record;
  }

  private run(machine: LoadedMachine, record: ExecutionRecord): void {
    const execution = machine.machine.run(JSON.parse(record.input), {
      overrides: {
        taskResourceLocalHandlers: machine.handlers,
        retryIntervalOverrides: machine.retryOverrides,
      },
      context: {
        Execution: {
          Id: record.executionArn,
          Input: JSON.parse(record.input),
          Name: record.name,
          StartTime: new Date(record.startDate * 1000).toISOString(),
        },
        StateMachine: { Id: machine.arn, Name: machine.def.name },
      },
    });
    const done = execution.result
      .then((output: unknown) => {
        record.status = 'SUCCEEDED';
        record.output = JSON.stringify(output ?? null);
      })
      .catch((error: Error) => {
        // The library wraps the state's error (a Fail state's Error/Cause) in ExecutionError.
        const caught = error.name === 'ExecutionError' && error.cause instanceof Error ? error.cause : error;
        record.status = 'FAILED';
        record.error = caught.name;
        record.cause = caught.message;
      })
      .finally(() => {
        if (this.stopped) return; // leave RUNNING on disk: the next start-up resumes it
        record.stopDate = Date.now() / 1000;
        this.persist(record);
        this.options.onExecutionEnd?.(record);
        this.running.delete(done);
      });
    this.running.add(done);
  }

  describe(executionArn: string): ExecutionRecord {
    const record = this.executions.get(executionArn);
    if (!record)
      throw new ApiError(400, 'ExecutionDoesNotExist', `Execution does not exist: ${executionArn}`);
    return record;
  }

  list(stateMachineArnValue: string, statusFilter?: string): ExecutionRecord[] {
    return [...this.executions.values()].filter(
      (e) => e.stateMachineArn === stateMachineArnValue && (!statusFilter || e.status === statusFilter),
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers['x-amz-target'] ?? '');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, string>;
    try {
      switch (target) {
        case 'AWSStepFunctions.StartExecution': {
          const record = this.startExecution(body.stateMachineArn ?? '', body.input ?? '{}', body.name);
          return reply(res, 200, { executionArn: record.executionArn, startDate: record.startDate });
        }
        case 'AWSStepFunctions.DescribeExecution':
          return reply(res, 200, this.describe(body.executionArn ?? ''));
        case 'AWSStepFunctions.ListExecutions':
          return reply(res, 200, {
            executions: this.list(body.stateMachineArn ?? '', body.statusFilter).map(
              ({ input: _i, output: _o, ...rest }) => rest,
            ),
          });
        default:
          return reply(res, 400, {
            __type: 'UnknownOperationException',
            message: `unsupported operation ${target}`,
          });
      }
    } catch (error) {
      if (error instanceof ApiError)
        return reply(res, error.status, { __type: error.type, message: error.message });
      if (error instanceof SyntaxError)
        return reply(res, 400, { __type: 'InvalidExecutionInput', message: 'input is not JSON' });
      throw error;
    }
  }

  /** Resolves when every execution still running has finished (used for orderly shutdown). */
  async drain(timeoutMs: number): Promise<void> {
    await Promise.race([Promise.allSettled([...this.running]), new Promise((r) => setTimeout(r, timeoutMs))]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
