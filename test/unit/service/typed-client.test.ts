/**
 * The typed client as a caller writes it (issue 34, item 4): openapi-fetch over the generated
 * `shared/openapi/api-types.ts`, compiled by the project's TypeScript under its strict settings.
 * A request body's field with a default (`onlyFailed`, `limit`) is optional; a PATCH body refuses
 * what the API refuses — the secret, a webhook's read-only fields (a GET → PATCH round trip) and,
 * once typed as the patch, any unknown field. Every `@ts-expect-error` below must meet its error
 * (an unused one is itself an error), and nothing else may fail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const SNIPPET = join(root, 'test/unit/service/typed-client.snippet.ts');

const snippet = `
import createClient from 'openapi-fetch';
import type { components, paths } from '../../../shared/openapi/api-types';

type Patch = components['schemas']['WebhookPatch'];
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });

export async function calls(view: components['schemas']['Webhook']): Promise<void> {
  // Fields with a default are optional for the caller.
  await api.POST('/webhooks/{id}/recover', {
    params: { path: { id: 1 } },
    body: { since: '2026-11-26T00:00:00Z' },
  });
  await api.POST('/webhooks/filters/preview', { body: { filter: 'has(metadata.projectName)' } });
  await api.PATCH('/webhooks/{id}', {
    params: { path: { id: 1 } },
    body: { name: 'renamed', maxDeliveriesPerSecond: null, filter: null },
  });

  await api.PATCH('/webhooks/{id}', {
    params: { path: { id: 1 } },
    // @ts-expect-error the secret changes through POST /webhooks/{id}/secret/rotate
    body: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  });
  await api.PATCH('/webhooks/{id}', {
    params: { path: { id: 1 } },
    // @ts-expect-error a webhook as GET answers it holds read-only fields
    body: { ...view, name: 'renamed' },
  });
  // @ts-expect-error an unknown field, in a body typed as the patch
  const typo = { name: 'renamed', colour: 'red' } satisfies Patch;
  await api.PATCH('/webhooks/{id}', { params: { path: { id: 1 } }, body: typo });
}
`;

function diagnostics(): string[] {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === SNIPPET ? snippet : readFile(name));
  host.fileExists = (name) => name === SNIPPET || fileExists(name);
  host.getSourceFile = (name, language, ...rest) =>
    name === SNIPPET
      ? ts.createSourceFile(name, snippet, language, true)
      : getSourceFile(name, language, ...rest);
  const program = ts.createProgram([SNIPPET], { ...options, noEmit: true }, host);
  const source = program.getSourceFile(SNIPPET);
  return ts.getPreEmitDiagnostics(program, source).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${where ? `${where.line + 1}:${where.character + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('the generated client types', () => {
  it('make defaulted body fields optional and refuse what a PATCH may not hold', () => {
    expect(diagnostics()).toEqual([]);
  }, 60_000);

  it('are generated with the versions the README names (TypeScript 6, openapi-typescript 7)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(pkg.devDependencies.typescript).toMatch(/^~6\./);
    expect(pkg.devDependencies['openapi-typescript']).toMatch(/^\^7\./);
    expect(ts.versionMajorMinor.startsWith('6.')).toBe(true);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/openapi-typescript 7[^\n]*TypeScript 6/);
  });
});
