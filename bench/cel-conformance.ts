/**
 * The two CEL implementations we considered for webhook payload filters (ADR 0010), run side by
 * side over the cel-spec conformance tests of the subset filters allow (literals, field access,
 * comparisons, logical operators, `in` on lists, `has()`, the string functions
 * contains/startsWith/endsWith/size). Tests about protobuf messages are left out: a delivery
 * payload is JSON, never a message. `celConformance()` gives the pass rate of each and the
 * minified and gzipped size of each library bundled alone: figure 14 of `npm run bench` reports
 * the chosen library's; `npm run bench:cel` (this file run directly) prints both, with the
 * failed tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { celUint, isCelError, isCelList, isCelMap, isCelUint, run } from '@bufbuild/cel';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { getConformanceSuite, type IncrementalTest } from '@bufbuild/cel-spec/testdata/tests.js';
import { Environment, evaluate } from '@marcbachmann/cel-js';
import { build } from 'esbuild';
import { repoRoot } from '../infra/constructs/bundles';

/** The library filters use (ADR 0010; `shared/webhooks/filter.ts` imports it). */
export const CHOSEN_CEL_LIBRARY = '@marcbachmann/cel-js';

/** The conformance files and their sections that exercise what filters allow. */
const ALLOWED: Record<string, string[]> = {
  basic: ['self_eval_zeroish', 'self_eval_nonzeroish', 'variables'],
  comparisons: [
    'eq_literal',
    'ne_literal',
    'lt_literal',
    'gt_literal',
    'lte_literal',
    'gte_literal',
    'in_list_literal',
  ],
  fields: ['map_fields', 'map_has', 'quoted_map_fields', 'in'],
  lists: ['in', 'size'],
  logic: ['conditional', 'AND', 'OR', 'NOT'],
  string: ['size', 'starts_with', 'ends_with', 'contains'],
  parse: ['whitespace', 'comments'],
};

/** A library-neutral form of a CEL value, to compare results with the expected ones. */
type Plain =
  | { t: 'null' }
  | { t: 'bool' | 'string'; v: boolean | string }
  | { t: 'int' | 'uint'; v: bigint }
  | { t: 'double'; v: number }
  | { t: 'bytes'; v: string }
  | { t: 'list'; v: Plain[] }
  | { t: 'map'; v: [Plain, Plain][] }
  | { t: 'other'; v: string };

function fromSpec(value: Value): Plain {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return { t: 'null' };
    case 'boolValue':
      return { t: 'bool', v: kind.value };
    case 'stringValue':
      return { t: 'string', v: kind.value };
    case 'int64Value':
      return { t: 'int', v: BigInt(kind.value) };
    case 'uint64Value':
      return { t: 'uint', v: BigInt(kind.value) };
    case 'doubleValue':
      return { t: 'double', v: kind.value };
    case 'bytesValue':
      return { t: 'bytes', v: Buffer.from(kind.value).toString('hex') };
    case 'listValue':
      return { t: 'list', v: kind.value.values.map(fromSpec) };
    case 'mapValue':
      return {
        t: 'map',
        v: kind.value.entries.map((e) => [fromSpec(e.key as Value), fromSpec(e.value as Value)]),
      };
    default:
      return { t: 'other', v: String(kind.case) };
  }
}

function fromJs(value: unknown, uintClass: unknown): Plain {
  if (value === null || value === undefined) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'string') return { t: 'string', v: value };
  if (typeof value === 'bigint') return { t: 'int', v: value };
  if (typeof value === 'number') return { t: 'double', v: value };
  if (value instanceof Uint8Array) return { t: 'bytes', v: Buffer.from(value).toString('hex') };
  if (isCelUint(value)) return { t: 'uint', v: value.value };
  if (typeof uintClass === 'function' && value instanceof uintClass)
    return { t: 'uint', v: BigInt((value as { valueOf(): bigint }).valueOf()) };
  if (Array.isArray(value) || isCelList(value))
    return { t: 'list', v: [...value].map((v) => fromJs(v, uintClass)) };
  if (value instanceof Map || isCelMap(value))
    return { t: 'map', v: [...value].map(([k, v]) => [fromJs(k, uintClass), fromJs(v, uintClass)]) };
  if (typeof value === 'object')
    return {
      t: 'map',
      v: Object.entries(value).map(([k, v]) => [fromJs(k, uintClass), fromJs(v, uintClass)]),
    };
  return { t: 'other', v: String(value) };
}

function same(a: Plain, b: Plain): boolean {
  if (a.t !== b.t) return false;
  if (a.t === 'double' && b.t === 'double') return a.v === b.v || (Number.isNaN(a.v) && Number.isNaN(b.v));
  if (a.t === 'list' && b.t === 'list')
    return a.v.length === b.v.length && a.v.every((x, i) => same(x, b.v[i] as Plain));
  if (a.t === 'map' && b.t === 'map')
    return (
      a.v.length === b.v.length && a.v.every(([k, v]) => b.v.some(([k2, v2]) => same(k, k2) && same(v, v2)))
    );
  return 'v' in a && 'v' in b ? a.v === b.v : true;
}

/** Converts a spec value to a library's input: ints as bigint, uints in the library's class. */
function toInput(value: Value, uint: (v: bigint) => unknown, list: (v: unknown[]) => unknown): unknown {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'int64Value':
      return BigInt(kind.value);
    case 'uint64Value':
      return uint(BigInt(kind.value));
    case 'listValue':
      return list(kind.value.values.map((v) => toInput(v, uint, list)));
    case 'mapValue':
      return new Map(
        kind.value.entries.map((e) => [
          toInput(e.key as Value, uint, list),
          toInput(e.value as Value, uint, list),
        ]),
      );
    default:
      return kind.value;
  }
}

interface Library {
  name: string;
  uintClass: unknown;
  uint: (v: bigint) => unknown;
  list: (v: unknown[]) => unknown;
  /** The value, or `error` when the library reports an evaluation error. */
  evaluate: (expr: string, bindings: Record<string, unknown>) => unknown;
}

const ERROR = Symbol('error');
const celJsUint = (evaluate('0u') as object).constructor as new (v: bigint) => unknown;
const celJsEnv = new Environment({ unlistedVariablesAreDyn: true, homogeneousAggregateLiterals: false });

const libraries: Library[] = [
  {
    name: '@bufbuild/cel',
    uintClass: undefined,
    uint: celUint,
    list: (v) => v,
    evaluate: (expr, bindings) => {
      const result = run(expr, bindings as Parameters<typeof run>[1]);
      return isCelError(result) ? ERROR : result;
    },
  },
  {
    name: '@marcbachmann/cel-js',
    uintClass: celJsUint,
    uint: (v) => new celJsUint(v),
    list: (v) => v,
    evaluate: (expr, bindings) => celJsEnv.evaluate(expr, bindings),
  },
];

type Outcome = 'pass' | 'fail' | 'excluded';

function runTest(library: Library, test: IncrementalTest): Outcome {
  const original = test.original;
  if (/TestAllTypes|google\.protobuf|cel\.expr/.test(original.expr)) return 'excluded';
  const matcher = original.resultMatcher;
  const bindings: Record<string, unknown> = {};
  for (const [name, exprValue] of Object.entries(original.bindings)) {
    if (exprValue.kind.case !== 'value') return 'excluded';
    if (exprValue.kind.value.kind.case === 'objectValue') return 'excluded';
    bindings[name] = toInput(exprValue.kind.value, library.uint, library.list);
  }
  let actual: unknown;
  try {
    actual = library.evaluate(original.expr, bindings);
  } catch {
    actual = ERROR;
  }
  if (matcher.case === 'evalError') return actual === ERROR ? 'pass' : 'fail';
  const expected = matcher.case === 'value' ? fromSpec(matcher.value) : { t: 'bool' as const, v: true };
  if (actual === ERROR) return 'fail';
  return same(fromJs(actual, library.uintClass), expected) ? 'pass' : 'fail';
}

/** The minified, gzipped size of a bundle holding only `source`'s imports. */
async function bundleSize(source: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir: repoRoot, loader: 'ts' },
    bundle: true,
    minify: true,
    write: false,
    platform: 'node',
    format: 'esm',
  });
  return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).length;
}

export interface LibraryConformance {
  library: string;
  version: string;
  passed: number;
  /** Tests run (the allowed subset's, protobuf messages excluded). */
  counted: number;
  excluded: number;
  /** Passed / counted, in percent (one decimal). */
  passRate: number;
  bundleGzipBytes: number;
  failed: { name: string; expr: string }[];
}

export interface ConformanceResult {
  spec: { package: string; version: string };
  tests: number;
  libraries: LibraryConformance[];
}

/** The installed version of a package (its package.json, whatever its `exports` allow). */
function versionOf(name: string): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8'));
  return String(manifest.version);
}

/** Both libraries over the allowed subset of the cel-spec conformance tests. */
export async function celConformance(): Promise<ConformanceResult> {
  const suite = getConformanceSuite();
  const tests: IncrementalTest[] = [];
  for (const file of suite.suites) {
    for (const section of file.suites) {
      if (ALLOWED[file.name]?.includes(section.name)) tests.push(...section.tests);
    }
  }
  if (tests.length === 0) throw new Error('no cel-spec conformance test in the allowed sections');
  const sizes = [
    await bundleSize(
      `import { parse, plan, celEnv } from '@bufbuild/cel'; console.log(parse, plan, celEnv);`,
    ),
    await bundleSize(`import { Environment } from '@marcbachmann/cel-js'; console.log(Environment);`),
  ];
  return {
    spec: { package: '@bufbuild/cel-spec', version: versionOf('@bufbuild/cel-spec') },
    tests: tests.length,
    libraries: libraries.map((library, index) => {
      const outcomes = tests.map((test) => ({ test, outcome: runTest(library, test) }));
      const passed = outcomes.filter((o) => o.outcome === 'pass').length;
      const failed = outcomes.filter((o) => o.outcome === 'fail');
      const counted = passed + failed.length;
      return {
        library: library.name,
        version: versionOf(library.name),
        passed,
        counted,
        excluded: tests.length - counted,
        passRate: Math.round((passed / counted) * 1000) / 10,
        bundleGzipBytes: sizes[index] ?? 0,
        failed: failed.map(({ test }) => ({ name: test.name, expr: test.original.expr })),
      };
    }),
  };
}

// `npm run bench:cel`: both libraries and their failures.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await celConformance();
  for (const r of result.libraries) {
    console.log(
      `${r.library} ${r.version}: ${r.passed}/${r.counted} passed (${r.passRate.toFixed(1)} %), ` +
        `${r.excluded} excluded (protobuf messages); bundle ${(r.bundleGzipBytes / 1024).toFixed(1)} KB gzipped`,
    );
    for (const f of r.failed) console.log(`  failed: ${f.name}: ${f.expr}`);
  }
}
