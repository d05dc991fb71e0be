/**
 * The benchmark table of the README and of `docs/benchmarks.md` ("Latest full run"), rendered
 * from a results file (`bench/results/latest.json`) so neither can drift from it (issue 42):
 * `renderResultsTable` is pure; `withResultsTable` puts its output between a file's markers;
 * `rewriteResultsTables` does that to both files on disk (a full `npm run bench`, and
 * `npm run bench:table` from the committed results file).
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line of the bench's summary, in the order the table prints them. */
export interface SummaryRow {
  figure: string;
  measured: string;
  baseline: string;
  result: string;
  /** A target starting with "reported" has nothing to meet: `met` is then only its sanity check. */
  target: string;
  met: boolean;
  /** Why the target is missed: set only on a missed row, shown beside the miss. */
  reason?: string;
}

/** What the table needs of a results file. */
export interface BenchResults {
  generatedAt: string;
  durationSeconds: number;
  machine: { cpus: number; cpuModel?: string; memoryGb: number; node: string };
  summary: SummaryRow[];
}

export const README_TABLE_START =
  '<!-- bench-table:start: generated from bench/results/latest.json by `npm run bench:table`; edits here are overwritten -->';
export const README_TABLE_END = '<!-- bench-table:end -->';

/** Plain text: the same row is rendered into files in different folders. */
const DOCS_LINK = '`docs/benchmarks.md`';

/** A cell's text, safe inside a GitHub table row. */
const cell = (text: string) =>
  text
    .replaceAll('\\', '\\\\')
    .replaceAll('|', '\\|')
    .replaceAll('*', '\\*')
    .replace(/\s*\n\s*/g, ' ');

/** "yes", "—" for a reported figure whose check held, or the miss with its reason. */
function metCell(row: SummaryRow): string {
  if (row.met) return row.target.startsWith('reported') ? '—' : 'yes';
  return `**no** (${row.reason ? cell(row.reason) : `no reason recorded in the run; see ${DOCS_LINK}`})`;
}

/** The run's date, duration and machine, as one line. */
function runLine(results: BenchResults): string {
  const at = results.generatedAt.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  const m = results.machine;
  return `Latest full run: ${at}, ${results.durationSeconds} s, on ${m.cpus} cores${
    m.cpuModel ? ` (${m.cpuModel.trim()})` : ''
  }, ${m.memoryGb} GB, Node ${m.node.replace(/^v/, '')}.`;
}

/** The markdown the README holds between its markers: the run's line, then one row per summary row. */
export function renderResultsTable(results: BenchResults): string {
  return [
    runLine(results),
    '',
    '| figure | measured | baseline (same run) | result | target | met |',
    '|---|---|---|---|---|---|',
    ...results.summary.map(
      (r) =>
        `| ${[r.figure, r.measured, r.baseline, r.result, r.target].map(cell).join(' | ')} | ${metCell(r)} |`,
    ),
  ].join('\n');
}

function markers(readme: string): { start: number; end: number } {
  const start = readme.indexOf(README_TABLE_START);
  const end = readme.indexOf(README_TABLE_END);
  if (start < 0 || end < start || readme.indexOf(README_TABLE_START, start + 1) >= 0)
    throw new Error(`the file needs one "${README_TABLE_START}" followed by one "${README_TABLE_END}"`);
  return { start: start + README_TABLE_START.length, end };
}

/** What the README holds between its markers now, without the blank lines around it. */
export function readmeTableBlock(readme: string): string {
  const { start, end } = markers(readme);
  return readme.slice(start, end).trim();
}

/**
 * The README with the block between its markers replaced by the table of these results (blank
 * lines around it, so the end marker cannot be read as a row).
 */
export function withResultsTable(readme: string, results: BenchResults): string {
  const { start, end } = markers(readme);
  return `${readme.slice(0, start)}\n\n${renderResultsTable(results)}\n\n${readme.slice(end)}`;
}

const README_FILE = join(import.meta.dirname, '..', '..', 'README.md');
const BENCHMARKS_DOC_FILE = join(import.meta.dirname, '..', '..', 'docs', 'benchmarks.md');
/** The files that hold the table between the markers. */
export const RESULTS_TABLE_FILES = [README_FILE, BENCHMARKS_DOC_FILE];
export const LATEST_RESULTS_FILE = join(import.meta.dirname, '..', 'results', 'latest.json');

/** A results file's JSON, checked for what the table reads. */
export function parseResults(json: string): BenchResults {
  const r = JSON.parse(json) as Partial<BenchResults>;
  if (
    typeof r.generatedAt !== 'string' ||
    typeof r.durationSeconds !== 'number' ||
    typeof r.machine?.cpus !== 'number' ||
    !Array.isArray(r.summary)
  )
    throw new Error('not a bench results file: generatedAt, durationSeconds, machine and summary expected');
  return r as BenchResults;
}

/** Rewrites the table in README.md and docs/benchmarks.md from these results. */
export function rewriteResultsTables(results: BenchResults): void {
  for (const file of RESULTS_TABLE_FILES)
    writeFileSync(file, withResultsTable(readFileSync(file, 'utf8'), results));
}
