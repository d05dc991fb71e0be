/**
 * Every AWS SDK client that functions, shared code and the local cloud build — the service's own,
 * and those a delivery or a connector builds for a customer's account — is built through
 * `withoutSdkLogging` (shared/config/sdk-clients.ts): with no logger configured, the SDK's logger
 * middleware still filters each call's input and output for a logger that discards them, CPU of
 * every invocation.
 *
 * In a file that names an `@aws-sdk/client-*` package (imported statically, on demand, or as a
 * type), every `new …Client(` — and `new` of a name a static import aliases a client to — must be
 * the direct argument of `withoutSdkLogging(`. Comments are not read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root, sourceFiles } from '../../support/source-files';

const SCANNED = ['shared', 'functions', 'infra/local'];

/** The text without block comments and `//` comments (a `//` inside a URL is kept). */
const withoutComments = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');

/** Names a static import gives an SDK client under another name (`{ SQSClient as Queue }`). */
function aliases(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@aws-sdk\/client-[^'"]+['"]/g))
    for (const part of (m[1] ?? '').split(',')) {
      const alias = /^\s*\w+Client\s+as\s+(\w+)\s*$/.exec(part)?.[1];
      if (alias) names.push(alias);
    }
  return names;
}

const escapeRegExp = (name: string) => name.replace(/[$.]/g, '\\$&');

/** Each SDK client construction in a source text, marked by whether `withoutSdkLogging(` wraps it. */
function constructions(source: string): { name: string; wrapped: boolean }[] {
  const text = withoutComments(source);
  if (!/['"]@aws-sdk\/client-[^'"]+['"]/.test(text)) return [];
  const names = ['[\\w$.]*Client', ...aliases(text).map(escapeRegExp)].join('|');
  const pattern = new RegExp(`(withoutSdkLogging\\(\\s*)?\\bnew\\s+(${names})\\s*(?:<[^>(]*>)?\\(`, 'g');
  return [...text.matchAll(pattern)].map((m) => ({ name: m[2] ?? '', wrapped: m[1] !== undefined }));
}

describe('AWS SDK clients', () => {
  it('the check sees every form of construction, wrapped or not, and reads no comment', () => {
    const text = [
      "import { SQSClient, SNSClient as Topics } from '@aws-sdk/client-sqs';",
      'const a = new SQSClient({});',
      'const b = withoutSdkLogging(\n  new SQSClient({}),\n);',
      'const c = new Topics({});',
      "const { KMSClient } = await import('@aws-sdk/client-kms');",
      'const d = new KMSClient({});',
      'const e = new sdk.EventBridgeClient({});',
      '// const f = new SQSClient({}); a comment',
      '/* new SQSClient({}) */',
      "const url = 'https://example.test'; // new SQSClient({})",
    ].join('\n');
    expect(constructions(text)).toEqual([
      { name: 'SQSClient', wrapped: false },
      { name: 'SQSClient', wrapped: true },
      { name: 'Topics', wrapped: false },
      { name: 'KMSClient', wrapped: false },
      { name: 'sdk.EventBridgeClient', wrapped: false },
    ]);
    // A file that names no SDK client package is not read (another library's `…Client`).
    expect(constructions("import { DBSQLClient } from '@databricks/sql';\nnew DBSQLClient({});")).toEqual([]);
  });

  it(`in ${SCANNED.join(', ')} are built without the SDK logger middleware`, () => {
    const all = SCANNED.flatMap(sourceFiles).flatMap((file) =>
      constructions(readFileSync(join(root, file), 'utf8')).map((c) => ({ file, ...c })),
    );
    // The service's own clients, the local cloud's, the AWS destinations' and the connectors'.
    const files = new Set(all.map((c) => c.file));
    for (const file of [
      'shared/store/clients.ts',
      'shared/crypto/envelope.ts',
      'shared/webhooks/aws/sqs.ts',
      'shared/platforms/object-store/driver.ts',
      'shared/platforms/cluster-warehouse/aws-credentials.ts',
      'infra/local/dynamodb.ts',
    ])
      expect(files, file).toContain(file);
    expect(all.filter((c) => !c.wrapped)).toEqual([]);
  });
});
