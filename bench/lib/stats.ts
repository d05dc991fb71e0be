/** Small statistics and concurrency helpers shared by the benchmark figures. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Runs `count` jobs with at most `concurrency` in flight; returns each job's duration in ms. */
export async function runPool(
  count: number,
  concurrency: number,
  job: (index: number) => Promise<void>,
): Promise<number[]> {
  const durations: number[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const started = performance.now();
      await job(i);
      durations[i] = performance.now() - started;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return durations;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
