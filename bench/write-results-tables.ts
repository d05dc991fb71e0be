/**
 * `npm run bench:table`: rewrites the benchmark table of README.md and docs/benchmarks.md from
 * `bench/results/latest.json` without running the bench (a full `npm run bench` does the same at
 * its end).
 */

import { readFileSync } from 'node:fs';
import {
  LATEST_RESULTS_FILE,
  parseResults,
  RESULTS_TABLE_FILES,
  rewriteResultsTables,
} from './lib/results-table';

rewriteResultsTables(parseResults(readFileSync(LATEST_RESULTS_FILE, 'utf8')));
process.stderr.write(
  `benchmark table rewritten from ${LATEST_RESULTS_FILE}: ${RESULTS_TABLE_FILES.join(', ')}\n`,
);
