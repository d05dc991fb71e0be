/**
 * `npm run bench:table`: rewrites README.md's benchmark table from `bench/results/latest.json`
 * without running the bench (a full `npm run bench` does the same at its end).
 */

import { readFileSync } from 'node:fs';
import { LATEST_RESULTS_FILE, parseResults, README_FILE, rewriteReadmeTable } from './lib/results-table';

rewriteReadmeTable(parseResults(readFileSync(LATEST_RESULTS_FILE, 'utf8')));
process.stderr.write(`${README_FILE}: benchmark table rewritten from ${LATEST_RESULTS_FILE}\n`);
