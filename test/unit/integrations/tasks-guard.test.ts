import { describe, expect, it } from 'vitest';
import { guardTask, TaskFailedError } from '../../../shared/integrations/workflow/tasks';
import { PlatformOperationError, TransientPlatformError } from '../../../shared/platforms/port';

describe('guardTask: what a workflow task may put in the execution history', () => {
  it('passes results and connector errors through unchanged', async () => {
    await expect(guardTask(async () => 42)).resolves.toBe(42);
    const shown = new PlatformOperationError('database "svc" already exists');
    await expect(guardTask(async () => Promise.reject(shown))).rejects.toBe(shown);
    const transient = new TransientPlatformError('connection reset');
    await expect(guardTask(async () => Promise.reject(transient))).rejects.toBe(transient);
  });

  it('reduces any other error to its name, so its message never reaches the history', async () => {
    const leak = new Error('connect postgres://admin:hunter2@db.example.com failed');
    const thrown = await guardTask(async () => Promise.reject(leak)).catch((e: Error) => e);
    expect(thrown).toBeInstanceOf(TaskFailedError);
    expect(thrown.name).toBe('TaskFailedError');
    expect(thrown.message).toBe('the task failed unexpectedly (Error)');
    expect(thrown.message).not.toContain('hunter2');
  });

  it('turns SDK errors the SDK marks retryable into TransientPlatformError (retried by the state machine)', async () => {
    const throttled = Object.assign(new Error('Rate exceeded for table secret-table'), {
      name: 'ThrottlingException',
      $retryable: { throttling: true },
    });
    const thrown = await guardTask(async () => Promise.reject(throttled)).catch((e: Error) => e);
    expect(thrown).toBeInstanceOf(TransientPlatformError);
    expect(thrown.message).toBe('a retryable service error occurred (ThrottlingException)');
  });
});
