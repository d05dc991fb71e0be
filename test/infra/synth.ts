/**
 * Synthesizes the Causeway app the way `npm run synth` does (cdk.json context, every
 * deployable stage, shared in-process bundles, cdk-nag AwsSolutions) into a temporary
 * directory. Call it once per test file, in `beforeAll`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { type CausewayApp, type CausewayStack, createCausewayApp } from '../../infra/stack';
import { loadStages, type StageConfig } from '../../infra/stages';
import { tempDir } from '../support/temp';

const repoRoot = join(import.meta.dirname, '..', '..');

function cdkContext(): Record<string, unknown> {
  return (
    JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
  ).context;
}

export interface SynthesizedApp extends CausewayApp {
  readonly assembly: CloudAssembly;
  readonly outdir: string;
  template(stage: string): Template;
  /** The template of the stage's nested alarm stack (ADR 0022). */
  alarmsTemplate(stage: string): Template;
  stack(stage: string): CausewayStack;
  config(stage: string): StageConfig;
}

export function synthesizeApp(): SynthesizedApp {
  const outdir = tempDir('causeway-infra-test-');
  const built = createCausewayApp({
    context: cdkContext(),
    outdir,
    bundlesDir: tempDir('causeway-bundles-'),
  });
  const assembly = built.app.synth();
  const templates = new Map<string, Template>();
  const alarmTemplates = new Map<string, Template>();
  const stages = loadStages();
  const stack = (stage: string) => {
    const found = built.stacks.find((s) => s.stackName === `Causeway-${stage}`);
    if (!found) throw new Error(`no stack for stage ${stage}`);
    return found;
  };
  return {
    ...built,
    assembly,
    outdir,
    stack,
    config: (stage) => {
      const config = stages[stage];
      if (!config) throw new Error(`no stage ${stage}`);
      return config;
    },
    alarmsTemplate: (stage) => {
      let template = alarmTemplates.get(stage);
      if (!template) {
        template = Template.fromStack(stack(stage).observability.alarmStack);
        alarmTemplates.set(stage, template);
      }
      return template;
    },
    template: (stage) => {
      let template = templates.get(stage);
      if (!template) {
        template = Template.fromJSON(assembly.getStackByName(stack(stage).stackName).template);
        templates.set(stage, template);
      }
      return template;
    },
  };
}
