import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type BenchResults,
  LATEST_RESULTS_FILE,
  parseResults,
  README_TABLE_END,
  README_TABLE_START,
  RESULTS_TABLE_FILES,
  readmeTableBlock,
  renderResultsTable,
  type SummaryRow,
  withResultsTable,
} from '../../../bench/lib/results-table';

const row = (over: Partial<SummaryRow>): SummaryRow => ({
  figure: '1. delivery throughput (deliveries/s)',
  measured: '138.9/s via the consumer',
  baseline: '148.8/s floor',
  result: 'ratio 0.93',
  target: '≥ 0.7',
  met: true,
  ...over,
});

const results = (summary: SummaryRow[]): BenchResults => ({
  generatedAt: '2026-11-26T16:38:13.439Z',
  durationSeconds: 669,
  machine: { cpus: 2, cpuModel: 'Intel(R) Xeon(R) Processor', memoryGb: 24, node: 'v24.21.0' },
  summary,
});

/** The table's rows, each as its cells. */
const rows = (markdown: string) =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| figure |'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(/(?<!\\) \| /)
        .map((c) => c.trim()),
    );

describe('the benchmark table of README.md and docs/benchmarks.md', () => {
  it.each(RESULTS_TABLE_FILES.map((file) => [file.split('/').slice(-2).join('/'), file]))(
    '%s holds what the renderer makes of bench/results/latest.json (`npm run bench:table` rewrites it)',
    (_name, file) => {
      const latest = parseResults(readFileSync(LATEST_RESULTS_FILE, 'utf8'));
      expect(readmeTableBlock(readFileSync(file, 'utf8'))).toBe(renderResultsTable(latest));
    },
  );
});

describe('the results table', () => {
  it("states the run's date, duration and machine", () => {
    expect(renderResultsTable(results([])).split('\n')[0]).toBe(
      'Latest full run: 2026-11-26 16:38 UTC, 669 s, on 2 cores (Intel(R) Xeon(R) Processor), 24 GB, Node 24.21.0.',
    );
  });

  it('keeps the summary order, one row each', () => {
    const table = renderResultsTable(
      results([
        row({ figure: '7. console' }),
        row({ figure: '5. cold start' }),
        row({ figure: '3. fan-out' }),
      ]),
    );
    expect(rows(table).map((cells) => cells[0])).toEqual(['7. console', '5. cold start', '3. fan-out']);
  });

  it('shows a met target as yes', () => {
    expect(rows(renderResultsTable(results([row({})])))[0]?.at(-1)).toBe('yes');
  });

  it('shows a miss as a miss with its reason', () => {
    const [cells] = rows(
      renderResultsTable(
        results([
          row({
            figure: '19. $ per million deliveries, all answered',
            target: '≤ $1.50 on-demand',
            met: false,
            reason: "the history's writes remain",
          }),
        ]),
      ),
    );
    expect(cells?.at(-1)).toBe("**no** (the history's writes remain)");
  });

  it('shows a miss without a recorded reason as a miss that points to the method page', () => {
    const [cells] = rows(renderResultsTable(results([row({ met: false })])));
    expect(cells?.at(-1)).toMatch(/^\*\*no\*\* \(no reason recorded in the run; see .*docs\/benchmarks\.md/);
  });

  it('shows — for a reported figure whose check held, and a miss when it did not', () => {
    const table = renderResultsTable(
      results([
        row({ figure: '13. count freshness', target: 'reported', met: true }),
        row({ figure: '6. GET /webhooks p50 / p99', target: 'reported; all 2xx', met: true }),
        row({ figure: '6. POST /webhooks p50 / p99', target: 'reported; all 2xx', met: false }),
      ]),
    );
    expect(rows(table).map((cells) => cells.at(-1)?.slice(0, 6))).toEqual(['—', '—', '**no**']);
  });

  it('escapes what would break a cell', () => {
    const table = renderResultsTable(
      results([row({ measured: 'la=global|s|3', target: 'reported (loading @aws-sdk/* dominates)' })]),
    );
    expect(table).toContain('| la=global\\|s\\|3 |');
    expect(table).toContain('@aws-sdk/\\* dominates');
    expect(rows(table)[0]).toHaveLength(6);
  });
});

describe('the README block', () => {
  const readme = ['# x', '', README_TABLE_START, 'stale', README_TABLE_END, '', 'after', ''].join('\n');

  it('is replaced between its markers, nothing else', () => {
    const next = withResultsTable(readme, results([row({})]));
    expect(next.startsWith(`# x\n\n${README_TABLE_START}\n\n`)).toBe(true);
    expect(next.endsWith(`\n\n${README_TABLE_END}\n\nafter\n`)).toBe(true);
    expect(readmeTableBlock(next)).toBe(renderResultsTable(results([row({})])));
    expect(withResultsTable(next, results([row({})]))).toBe(next);
  });

  it('needs both markers', () => {
    expect(() => withResultsTable('# no markers\n', results([]))).toThrow(/bench-table:start/);
  });
});
