/**
 * Every AWS SDK client that functions and shared code build — the service's own, and those a
 * delivery or a connector builds for a customer's account — is built through `withoutSdkLogging`
 * (shared/config/sdk-clients.ts): with no logger configured, the SDK's logger middleware still
 * filters each call's input and output for a logger that discards them, CPU of every invocation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** The client classes a file imports from the AWS SDK (`@aws-sdk/client-*`). */
function sdkClientClasses(text: string): string[] {
  const classes: string[] = [];
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@aws-sdk\/client-[^'"]+['"]/g)) {
    for (const name of (m[1] ?? '').split(','))
      if (/^\s*(?!type\s)\w+Client\s*$/.test(name)) classes.push(name.trim());
  }
  return classes;
}

/** `new X(` of each class, marked by whether `withoutSdkLogging(` wraps it directly. */
function constructions(text: string, classes: readonly string[]): { name: string; wrapped: boolean }[] {
  return classes.flatMap((name) =>
    [...text.matchAll(new RegExp(`(withoutSdkLogging\\(\\s*)?new ${name}\\(`, 'g'))].map((m) => ({
      name,
      wrapped: m[1] !== undefined,
    })),
  );
}

describe('AWS SDK clients', () => {
  it('the check sees a construction, wrapped or not', () => {
    const text =
      "import { SQSClient } from '@aws-sdk/client-sqs';\nconst a = new SQSClient({});\nconst b = withoutSdkLogging(\n  new SQSClient({}),\n);";
    expect(constructions(text, sdkClientClasses(text))).toEqual([
      { name: 'SQSClient', wrapped: false },
      { name: 'SQSClient', wrapped: true },
    ]);
  });

  it('in shared/ and functions/ are built without the SDK logger middleware', () => {
    const all = ['shared', 'functions'].flatMap(sourceFiles).flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return constructions(text, sdkClientClasses(text)).map((c) => ({ file, ...c }));
    });
    // The service's own clients, the AWS destinations' and the connectors' are all here.
    expect(all.length).toBeGreaterThan(10);
    expect(all.filter((c) => !c.wrapped)).toEqual([]);
  });
});
