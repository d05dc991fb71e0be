/**
 * The shared function wrapper on its own: runtime and bundle options, a clear synth failure
 * for a missing handler module, access → env vars + grants, the NodejsFunction bundling path,
 * and stage selection.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { HandlerBundles } from '../../infra/constructs/bundles';
import { CausewayFunction, StackResources, type StageContext } from '../../infra/constructs/function';
import { selectStages } from '../../infra/stack';
import { loadStages } from '../../infra/stages';
import { DEFAULT_ROUTE_HANDLER } from '../../shared/catalog/handlers';
import { tempDir } from '../support/temp';

const HANDLER = DEFAULT_ROUTE_HANDLER;
const stages = loadStages();
const dev: StageContext = { name: 'dev', config: stages.dev ?? (undefined as never) };

function platform(stack: Stack): StackResources {
  const resources = new StackResources();
  resources.addTable(
    'counters',
    new dynamodb.Table(stack, 'Counters', {
      partitionKey: { name: 'name', type: dynamodb.AttributeType.STRING },
    }),
  );
  resources.addTable(
    'apiKeys',
    new dynamodb.Table(stack, 'ApiKeys', {
      partitionKey: { name: 'keyHash', type: dynamodb.AttributeType.STRING },
    }),
  );
  resources.addQueue('notifications', new sqs.Queue(stack, 'Queue'), new sqs.Queue(stack, 'Dlq'));
  resources.setSecretsKey(new kms.Key(stack, 'Key', { enableKeyRotation: true }));
  resources.addStateMachine(
    'integrationLifecycle',
    new sfn.StateMachine(stack, 'Machine', {
      definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'P')),
    }),
  );
  return resources;
}

describe('CausewayFunction with shared bundles', () => {
  let template: Template;
  let bundles: HandlerBundles;
  beforeAll(() => {
    const app = new App({ outdir: tempDir('causeway-fn-') });
    const stack = new Stack(app, 'Fn');
    const resources = platform(stack);
    bundles = new HandlerBundles({ outDir: tempDir('causeway-bundles-') });
    const target = new CausewayFunction(stack, 'Target', {
      handler: HANDLER,
      stage: dev,
      resources,
      bundles,
    });
    resources.addInternalFunction('platformConnector', target);
    new CausewayFunction(stack, 'Subject', {
      handler: HANDLER,
      stage: dev,
      resources,
      bundles,
      timeoutSeconds: 7,
      memoryMb: 256,
      access: {
        tables: [
          { table: 'counters', access: 'readWrite' },
          { table: 'apiKeys', access: 'read' },
        ],
        sendsTo: ['notifications'],
        startsWorkflow: true,
        usesSecrets: true,
        invokes: ['platformConnector'],
      },
    });
    resources.bindAll();
    template = Template.fromStack(stack);
  });

  it('writes one minified ESM bundle per handler with the createRequire banner and a source map', () => {
    const dirs = readdirSync(bundles.outDir);
    expect(dirs).toHaveLength(1);
    const dir = join(bundles.outDir, dirs[0] ?? '');
    const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(bundle.startsWith("import { createRequire as __causewayCreateRequire } from 'node:module';")).toBe(
      true,
    );
    expect(bundle).toMatch(/export\s*\{[^}]*as handler\s*\}/);
    expect(bundle).toContain('//# sourceMappingURL=index.mjs.map');
    // Minified: top-level function names from shared/edge/route-match.ts are mangled.
    expect(bundle).not.toContain('function allowedMethods(');
    expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    // Both functions run the same handler: one asset.
    const keys = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (f) => (f.Properties.Code as { S3Key: string }).S3Key,
    );
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
  });

  it('sets runtime, architecture, tracing, memory and timeout', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Timeout: 7,
      MemorySize: 256,
      Handler: 'index.handler',
    });
  });

  it('turns access into env vars', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 7,
      Environment: {
        Variables: {
          CAUSEWAY_STAGE: 'dev',
          TABLE_COUNTERS: { Ref: Match.anyValue() },
          TABLE_API_KEYS: { Ref: Match.anyValue() },
          QUEUE_NOTIFICATIONS_URL: { Ref: Match.anyValue() },
          QUEUE_NOTIFICATIONS_DLQ_URL: { Ref: Match.anyValue() },
          STATE_MACHINE_INTEGRATION_LIFECYCLE_ARN: { Ref: Match.anyValue() },
          SECRETS_KMS_KEY_ID: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] },
          FUNCTION_PLATFORM_CONNECTOR_NAME: { Ref: Match.anyValue() },
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
  });

  it('grants exactly what the access names, write only where readWrite', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const statements = policies.flatMap(
      (p) =>
        (p.Properties.PolicyDocument as { Statement: { Action: string | string[]; Resource: unknown }[] })
          .Statement,
    );
    // Statements whose resources reference the construct with this id (logical id = id + 8 hex).
    const actionsOn = (id: string) =>
      new Set(
        statements
          .filter((s) => new RegExp(`"${id}[0-9A-F]{8}"`).test(JSON.stringify(s.Resource)))
          .flatMap((s) => [s.Action].flat()),
      );
    expect(actionsOn('Counters')).toContain('dynamodb:PutItem');
    expect(actionsOn('ApiKeys')).toContain('dynamodb:GetItem');
    expect(actionsOn('ApiKeys')).not.toContain('dynamodb:PutItem');
    expect(actionsOn('Key')).toEqual(new Set(['kms:GenerateDataKey', 'kms:Decrypt']));
    expect(actionsOn('Dlq')).toContain('sqs:SendMessage');
    expect(actionsOn('Queue')).toContain('sqs:ChangeMessageVisibility');
    expect([...actionsOn('Machine')]).toEqual(
      expect.arrayContaining(['states:StartExecution', 'states:ListExecutions', 'states:DescribeExecution']),
    );
    expect([...actionsOn('Target')]).toEqual(['lambda:InvokeFunction']);
  });
});

describe('CausewayFunction with split bundles', () => {
  it('ships the chunk a handler loads on demand in its own asset, and in no other', () => {
    const outdir = tempDir('causeway-fn-split-');
    const app = new App({ outdir });
    const stack = new Stack(app, 'Split');
    const resources = new StackResources();
    const bundles = new HandlerBundles({ outDir: tempDir('causeway-bundles-') });
    const handlers = { Yaml: 'test/infra/fixtures/lazy-yaml.ts', Zod: 'test/infra/fixtures/lazy-zod.ts' };
    bundles.prepare(Object.values(handlers));
    for (const [id, handler] of Object.entries(handlers)) {
      new CausewayFunction(stack, id, { handler, stage: dev, resources, bundles });
    }
    resources.bindAll();
    app.synth();
    const functions = Template.fromStack(stack).findResources('AWS::Lambda::Function');
    const assetOf = (id: string) => {
      const [, fn] = Object.entries(functions).find(([logicalId]) => logicalId.startsWith(id)) ?? [];
      const key = (fn?.Properties.Code as { S3Key: string } | undefined)?.S3Key ?? '';
      return join(outdir, `asset.${key.replace(/\.zip$/, '')}`);
    };
    for (const [id, own, other] of [
      ['Yaml', 'yaml', 'zod'],
      ['Zod', 'zod', 'yaml'],
    ] as const) {
      const dir = assetOf(id);
      expect(existsSync(join(dir, 'index.mjs')), id).toBe(true);
      const chunks = readdirSync(join(dir, 'chunks'));
      expect(chunks.filter((f) => f.startsWith(`heavy-${own}-`)).sort(), id).toEqual([
        expect.stringMatching(/\.mjs$/),
        expect.stringMatching(/\.mjs\.map$/),
      ]);
      expect(
        chunks.filter((f) => f.startsWith(`heavy-${other}-`)),
        id,
      ).toEqual([]);
      // The entry loads its chunk by a path inside the asset.
      const chunk = chunks.find((f) => f.startsWith(`heavy-${own}-`) && f.endsWith('.mjs'));
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8'), id).toContain(`"./chunks/${chunk}"`);
    }
  });
});

describe('CausewayFunction failures and fallback bundling', () => {
  it('fails synth with a clear message when the handler module does not exist', () => {
    const stack = new Stack(new App({ outdir: tempDir('causeway-fn-') }), 'Missing');
    expect(
      () =>
        new CausewayFunction(stack, 'Ghost', {
          handler: 'functions/nowhere/ghost.ts',
          stage: dev,
          resources: new StackResources(),
        }),
    ).toThrow(/Missing\/Ghost: handler module functions\/nowhere\/ghost\.ts does not exist/);
  });

  it('fails synth when access names a resource the stack does not have', () => {
    const stack = new Stack(new App({ outdir: tempDir('causeway-fn-') }), 'Unbound');
    const resources = new StackResources();
    new CausewayFunction(stack, 'Fn', {
      handler: HANDLER,
      stage: dev,
      resources,
      bundles: new HandlerBundles({ outDir: tempDir('causeway-bundles-') }),
      access: { tables: [{ table: 'counters', access: 'read' }] },
    });
    expect(() => resources.bindAll()).toThrow(/table counters is not part of this stack/);
  });

  it('bundles with NodejsFunction’s local esbuild (no Docker) when no shared bundles are given', () => {
    const outdir = tempDir('causeway-fn-own-');
    const app = new App({ outdir });
    const stack = new Stack(app, 'Own');
    const resources = new StackResources();
    new CausewayFunction(stack, 'Own', { handler: HANDLER, stage: dev, resources });
    resources.bindAll();
    app.synth();
    const assets = readdirSync(outdir).filter((f) => f.startsWith('asset.'));
    expect(assets).toHaveLength(1);
    const dir = join(outdir, assets[0] ?? '');
    const bundle = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(bundle).toContain('createRequire');
    expect(bundle).toMatch(/export\s*\{[^}]*as handler\s*\}/);
    expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
    // Without a metafile every function gets the files modules read beside themselves.
    expect(existsSync(join(dir, 'served-document.json'))).toBe(true);
  });
});

describe('stage selection', () => {
  it('selects every deployable stage by default and refuses local and unknown stages', () => {
    expect(selectStages(stages, undefined)).toEqual(
      Object.entries(stages)
        .filter(([, c]) => c.deploy)
        .map(([n]) => n),
    );
    expect(selectStages(stages, 'dev')).toEqual(['dev']);
    expect(() => selectStages(stages, 'local')).toThrow(/not deployable/);
    expect(() => selectStages(stages, 'nope')).toThrow(/unknown stage "nope"/);
  });
});
