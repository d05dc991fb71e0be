/**
 * The response check's validators (./contract.ts), compiled once per state of the OpenAPI
 * document instead of once per test file: Ajv compiles a validator for every JSON body the
 * document describes and writes them as standalone code (Ajv's `standaloneCode`, CommonJS, its
 * formats from ajv-formats) to node_modules/.cache/causeway-response-validators/<hash>.cjs; each
 * file then loads that module. Every test file on a cloud imported Ajv and compiled the
 * schemas it met (~0.3 CPU-second a file, ~115 files a run, on a CPU-bound run: issue 35).
 * The validators are the ones `ajv.compile` made (same options, same document), so a body
 * passes or fails, with the same errors, as it did.
 *
 * The file's name is a hash of the document, this file and the Ajv versions; a file is written
 * to a temporary name and renamed into place, so parallel workers never read half of one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const repoRoot = join(import.meta.dirname, '..', '..');
const DOCUMENT_FILE = join(repoRoot, 'shared', 'openapi', 'openapi.json');

/** The document's id in Ajv: validators refer to `openapi.json#/…`. */
const DOCUMENT_ID = 'openapi.json';

/** A JSON Pointer fragment (`#/a/b~1c`) of the segments. */
function pointer(...segments: string[]): string {
  return `#/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

/** Where the error schema is: bodies of 404/405/413 answers the document cannot list. */
export const ERROR_REF = pointer('components', 'schemas', 'Error');

/** A response as the document lists it. */
export interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
  /** A response component (`#/components/responses/<name>`): the edge's shared answers. */
  $ref?: string;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>;
  components: { responses?: Record<string, ResponseObject> };
}

/** A response's location: its component's when it is a `$ref` to one (as ./contract.ts resolves it). */
export function responseAt(
  document: OpenApiDocument,
  path: string,
  method: string,
  status: string,
  listed: ResponseObject,
): { at: string; response: ResponseObject | undefined } {
  const component = listed.$ref?.match(/^#\/components\/responses\/(.+)$/)?.[1];
  return component
    ? {
        at: pointer('components', 'responses', component),
        response: document.components.responses?.[component],
      }
    : { at: pointer('paths', path, method, 'responses', status), response: listed };
}

/** The schema of a response's JSON body. */
export const jsonBodyRef = (at: string) =>
  `${at}${pointer('content', 'application/json', 'schema').slice(1)}`;

/** Every schema the check can validate a body against: each response's JSON body, and the error. */
function bodyRefs(document: OpenApiDocument): string[] {
  const refs = new Set([ERROR_REF]);
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const [status, listed] of Object.entries(operation?.responses ?? {})) {
        const { at, response } = responseAt(document, path, method, status, listed);
        if (response?.content && 'application/json' in response.content) refs.add(jsonBodyRef(at));
      }
    }
  }
  return [...refs];
}

interface Compiled {
  /** Each ref's validator; a ref Ajv could not compile has the reason instead. */
  validators: Map<string, ValidateFunction | string>;
}

/** Compiles every body schema of the document and writes them as one CommonJS module. */
function generate(documentText: string, file: string): void {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const standaloneCode = (require('ajv/dist/standalone') as typeof import('ajv/dist/standalone')).default;
  const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
  // The options ./contract.ts compiled with (no meta-schema check of the document as it is
  // added: its schemas sit under `paths` and `components`, which that check never read).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, code: { source: true } });
  addFormats(ajv);
  const document = JSON.parse(documentText) as OpenApiDocument;
  ajv.addSchema(document, DOCUMENT_ID);
  const exported: Record<string, string> = {};
  const broken: Record<string, string> = {};
  bodyRefs(document).forEach((ref, i) => {
    try {
      ajv.addSchema({ $ref: `${DOCUMENT_ID}${ref}` }, `body${i}`);
      ajv.getSchema(`body${i}`);
      exported[`body${i}`] = ref;
    } catch (error) {
      ajv.removeSchema(`body${i}`);
      broken[ref] = (error as Error).message;
    }
  });
  const code = standaloneCode(ajv, Object.fromEntries(Object.keys(exported).map((name) => [name, name])));
  const trailer = `\nmodule.exports.refs = ${JSON.stringify(exported)};\nmodule.exports.broken = ${JSON.stringify(broken)};\n`;
  const work = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(work, code + trailer);
  renameSync(work, file);
}

/** The document's compiled body validators, generated now if this document state has none. */
export function responseValidators(): Compiled {
  const documentText = readFileSync(DOCUMENT_FILE, 'utf8');
  const hash = createHash('sha256')
    .update(documentText)
    .update(readFileSync(import.meta.filename))
    .update(readFileSync(require.resolve('ajv/package.json')))
    .update(readFileSync(require.resolve('ajv-formats/package.json')))
    .digest('hex')
    .slice(0, 16);
  const dir = join(repoRoot, 'node_modules', '.cache', 'causeway-response-validators');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${hash}.cjs`);
  if (!existsSync(file)) generate(documentText, file);
  const module = require(file) as Record<string, ValidateFunction> & {
    refs: Record<string, string>;
    broken: Record<string, string>;
  };
  const validators = new Map<string, ValidateFunction | string>(Object.entries(module.broken));
  for (const [name, ref] of Object.entries(module.refs))
    validators.set(ref, module[name] as ValidateFunction);
  return { validators };
}
