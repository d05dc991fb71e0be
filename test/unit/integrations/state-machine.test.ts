/**
 * The lifecycle ASL's paths through the local runner (aws-local-stepfunctions), with the task
 * states mapped to recording stubs: success, retry of a transient failure, a failed create or
 * edit → its undo (Compensate) → the outcome recorder with the error (and the undo's error when
 * that fails too), a failed teardown recorded as is, retries exhausted, each operation's branch,
 * and the reconciler's undo-only execution.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { type AslDefinition, mappingProblems } from '../../../infra/workflows/definition';
import { workflows } from '../../../shared/catalog/workflows';

const def = workflows[0];
const text = readFileSync(join(import.meta.dirname, '..', '..', '..', def.definition), 'utf8');
const asl = JSON.parse(
  text.replace(/\$\{([A-Za-z]+)\}/g, 'arn:aws:lambda:us-east-1:000000000000:function:$1'),
) as AslDefinition;

class TransientPlatformError extends Error {
  override name = 'TransientPlatformError';
}
class PlatformOperationError extends Error {
  override name = 'PlatformOperationError';
}

type Calls = { state: string; input: Record<string, unknown> }[];

async function run(
  input: Record<string, unknown>,
  work: (attempt: number) => unknown,
  undo: () => unknown = () => undefined,
): Promise<{ calls: Calls; status: 'SUCCEEDED' | 'FAILED'; error?: string }> {
  const calls: Calls = [];
  let attempt = 0;
  const remote = async (state: string, i: Record<string, unknown>) => {
    calls.push({ state, input: i });
    attempt++;
    const result = await work(attempt);
    return (result ?? { ok: true }) as Record<string, unknown>;
  };
  const record = async (state: string, i: Record<string, unknown>) => {
    calls.push({ state, input: i });
    return { recorded: true };
  };
  // biome-ignore lint/suspicious/noExplicitAny: parsed ASL
  const machine = new StateMachine(asl as any, { validationOptions: { checkArn: true, checkPaths: true } });
  // biome-ignore lint/suspicious/noExplicitAny: test input is plain JSON
  const execution = machine.run(input as any, {
    overrides: {
      taskResourceLocalHandlers: {
        Bootstrap: (i: unknown) => remote('Bootstrap', i as Record<string, unknown>),
        ApplyEdit: (i: unknown) => remote('ApplyEdit', i as Record<string, unknown>),
        Teardown: (i: unknown) => remote('Teardown', i as Record<string, unknown>),
        Compensate: async (i: unknown) => {
          calls.push({ state: 'Compensate', input: i as Record<string, unknown> });
          return ((await undo()) ?? { undone: 1 }) as Record<string, unknown>;
        },
        RecordSuccess: (i: unknown) => record('RecordSuccess', i as Record<string, unknown>),
        RecordFailure: (i: unknown) => record('RecordFailure', i as Record<string, unknown>),
        RecordUndoFailure: (i: unknown) => record('RecordUndoFailure', i as Record<string, unknown>),
      } as never,
      retryIntervalOverrides: {
        Bootstrap: 0,
        ApplyEdit: 0,
        Teardown: 0,
        Compensate: 0,
        RecordSuccess: 0,
        RecordFailure: 0,
        RecordUndoFailure: 0,
      },
    },
  });
  try {
    await execution.result;
    return { calls, status: 'SUCCEEDED' };
  } catch (error) {
    const e = error as Error & { cause?: Error };
    return { calls, status: 'FAILED', error: e.cause?.name ?? e.name };
  }
}

const input = (operation: string) => ({ integrationId: 5, operation, requestId: 'r-1' });

describe('integration lifecycle state machine', () => {
  it('maps every Task to a cataloged handler', () => {
    expect(mappingProblems(def, JSON.parse(text) as AslDefinition)).toEqual([]);
    for (const task of Object.values(def.tasks)) expect(task.tables?.length ?? 0).toBeGreaterThan(0);
  });

  it.each([
    ['create', 'Bootstrap'],
    ['edit', 'ApplyEdit'],
    ['delete', 'Teardown'],
  ])('%s: success runs %s then records success', async (operation, state) => {
    const out = await run(input(operation), () => undefined);
    expect(out.status).toBe('SUCCEEDED');
    expect(out.calls.map((c) => c.state)).toEqual([state, 'RecordSuccess']);
    expect(out.calls[1]?.input).toEqual({
      integrationId: 5,
      operation,
      requestId: 'r-1',
      outcome: 'succeeded',
    });
  });

  it('retries a transient platform failure and then succeeds', async () => {
    const out = await run(input('create'), (attempt) => {
      if (attempt < 3) throw new TransientPlatformError('blip');
    });
    expect(out.status).toBe('SUCCEEDED');
    expect(out.calls.map((c) => c.state)).toEqual(['Bootstrap', 'Bootstrap', 'Bootstrap', 'RecordSuccess']);
  });

  it.each([
    ['create', 'Bootstrap'],
    ['edit', 'ApplyEdit'],
  ])(
    '%s: a permanent failure is not retried, is undone, then recorded; the execution fails',
    async (operation, state) => {
      const out = await run(input(operation), () => {
        throw new PlatformOperationError('role exists');
      });
      expect(out.status).toBe('FAILED');
      expect(out.error).toBe('IntegrationOperationFailed');
      expect(out.calls.map((c) => c.state)).toEqual([state, 'Compensate', 'RecordFailure']);
      expect(out.calls[1]?.input).toMatchObject({
        ...input(operation),
        error: { Error: 'PlatformOperationError' },
      });
      expect(out.calls[2]?.input).toEqual({
        integrationId: 5,
        operation,
        requestId: 'r-1',
        outcome: 'failed',
        error: { Error: 'PlatformOperationError', Cause: 'role exists' },
      });
    },
  );

  it('records both failures when the undo fails too', async () => {
    const out = await run(
      input('create'),
      () => {
        throw new PlatformOperationError('group exists');
      },
      () => {
        throw new PlatformOperationError('drop refused');
      },
    );
    expect(out.status).toBe('FAILED');
    expect(out.calls.map((c) => c.state)).toEqual(['Bootstrap', 'Compensate', 'RecordUndoFailure']);
    expect(out.calls[2]?.input).toEqual({
      integrationId: 5,
      operation: 'create',
      requestId: 'r-1',
      outcome: 'failed',
      error: { Error: 'PlatformOperationError', Cause: 'group exists' },
      undoError: { Error: 'PlatformOperationError', Cause: 'drop refused' },
    });
  });

  it('a failed teardown is recorded as is (a DELETE retries it)', async () => {
    const out = await run(input('delete'), () => {
      throw new PlatformOperationError('role exists');
    });
    expect(out.calls.map((c) => c.state)).toEqual(['Teardown', 'RecordFailure']);
    expect(out.calls[1]?.input).toEqual({
      integrationId: 5,
      operation: 'delete',
      requestId: 'r-1',
      outcome: 'failed',
      error: { Error: 'PlatformOperationError', Cause: 'role exists' },
    });
  });

  it("the reconciler's undo-only execution runs Compensate, then records the failure it was given", async () => {
    const error = {
      Error: 'OperationAbandoned',
      Cause: 'the workflow ended (FAILED) without recording an outcome',
    };
    const out = await run({ ...input('create'), compensate: true, error }, () => undefined);
    expect(out.calls.map((c) => c.state)).toEqual(['Compensate', 'RecordFailure']);
    expect(out.calls[1]?.input).toEqual({ ...input('create'), outcome: 'failed', error });
  });

  it('records a failure once transient retries are exhausted', async () => {
    const out = await run(input('delete'), () => {
      throw new TransientPlatformError('still down');
    });
    expect(out.status).toBe('FAILED');
    expect(out.calls.map((c) => c.state)).toEqual([
      'Teardown',
      'Teardown',
      'Teardown',
      'Teardown',
      'RecordFailure',
    ]);
  });

  it('refuses an unknown operation', async () => {
    const out = await run(input('rename'), () => undefined);
    expect(out.status).toBe('FAILED');
    expect(out.error).toBe('UnknownOperation');
    expect(out.calls).toEqual([]);
  });

  it('never carries secrets: task inputs are the execution input plus results', async () => {
    const out = await run({ ...input('delete'), credentialsRef: 'ref-1' }, () => undefined);
    expect(out.calls[0]?.input).toEqual({ ...input('delete'), credentialsRef: 'ref-1' });
  });
});
