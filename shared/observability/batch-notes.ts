/**
 * Facts a queue consumer's records leave for their batch's one line (`<queue> batch`, written by
 * the queue-consumer edge) instead of a line each: a record whose outcome is routine and kept
 * elsewhere — a delivered attempt, whose history record holds its status, duration and id — is
 * named there, and anything else keeps its own line. A line per delivered attempt was a fifth of
 * a delivery's log bytes (issue 42, ADR 0023).
 *
 * Outside a batch (a record run on its own, as tests and benchmarks do) there is no batch line:
 * `noteInBatch` answers false and the caller logs its own line.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A batch's notes: values by the key the batch line carries them under, in the order noted. */
export type BatchNotes = Map<string, (string | number)[]>;

const batch = new AsyncLocalStorage<BatchNotes>();

/** Runs `run` as one batch: what its records note lands in `notes`. */
export function inBatch<T>(notes: BatchNotes, run: () => Promise<T>): Promise<T> {
  return batch.run(notes, run);
}

/** Adds `value` under `key` to the current batch's line; false when there is no batch. */
export function noteInBatch(key: string, value: string | number): boolean {
  const notes = batch.getStore();
  if (!notes) return false;
  const values = notes.get(key);
  if (values) values.push(value);
  else notes.set(key, [value]);
  return true;
}
