/**
 * The lifecycle ASL passes asl-validator, and every Task in it is mapped to a cataloged
 * handler — the local runner refuses a definition with an unmapped Task instead of letting
 * aws-local-stepfunctions call real AWS Lambda.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type AslDefinition,
  mappingProblems,
  readDefinitionText,
  substitute,
  taskStates,
} from '../../infra/workflows/definition';
import { type WorkflowDef, workflows } from '../../shared/catalog/workflows';

type AslValidator = (
  definition: unknown,
  options?: { checkPaths: boolean; checkArn: boolean },
) => { isValid: boolean; errorsText: (separator?: string) => string };
const aslValidator = createRequire(import.meta.url)('asl-validator') as AslValidator;

// Lets one test hand the local runner a modified definition; every other test reads the file.
const override = vi.hoisted(() => ({ text: undefined as string | undefined }));
vi.mock('../../infra/workflows/definition', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../infra/workflows/definition')>();
  return {
    ...original,
    readDefinitionText: (workflow: Pick<WorkflowDef, 'definition'>) =>
      override.text ?? original.readDefinitionText(workflow),
  };
});

const workflowList = workflows as readonly WorkflowDef[];
/** `${name}`: a substitution placeholder as written in the ASL. */
const placeholder = (name: string) => `\${${name}}`;
const dirs: string[] = [];
afterEach(() => {
  override.text = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fakeArns(def: WorkflowDef): Record<string, string> {
  return Object.fromEntries(
    Object.keys(def.tasks).map((v) => [v, `arn:aws:lambda:eu-west-1:123456789012:function:causeway-${v}`]),
  );
}

async function localRunner() {
  const { LocalStepFunctions } = await import('../../infra/local/stepfunctions');
  const stateDir = mkdtempSync(join(tmpdir(), 'causeway-asl-'));
  dirs.push(stateDir);
  return new LocalStepFunctions({ stateDir, prefix: 'test', retryIntervalMs: 0 });
}

describe.each(workflowList.map((w) => [w.name, w] as const))('workflow %s', (_name, def) => {
  const text = readDefinitionText(def);
  const definition = JSON.parse(text) as AslDefinition;

  it('passes asl-validator with the task ARNs substituted (as deployed)', () => {
    const deployed = aslValidator(JSON.parse(substitute(text, fakeArns(def))), {
      checkPaths: true,
      checkArn: true,
    });
    expect(deployed.isValid, deployed.errorsText('\n')).toBe(true);
  });

  it('uses JSONPath only (no JSONata, no Assign), which the local runner supports', () => {
    expect(text).not.toMatch(/"QueryLanguage"\s*:\s*"JSONata"|"Assign"\s*:/);
  });

  it('maps every Task to a cataloged handler and uses every cataloged task', () => {
    expect(taskStates(definition).length).toBeGreaterThan(0);
    expect(mappingProblems(def, definition)).toEqual([]);
  });

  it('reports an unmapped Task and a literal Resource', () => {
    const modified: AslDefinition = structuredClone(definition);
    modified.States.Rogue = { Type: 'Task', Resource: placeholder('RogueFunctionArn'), End: true };
    modified.States.Literal = {
      Type: 'Task',
      Resource: 'arn:aws:lambda:eu-west-1:123456789012:function:elsewhere',
      End: true,
    };
    const problems = mappingProblems(def, modified);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`Rogue uses ${placeholder('RogueFunctionArn')}`),
        expect.stringContaining('Literal has a literal Resource'),
      ]),
    );
  });

  it('is accepted by the local runner', async () => {
    const runner = await localRunner();
    expect(Object.keys(runner.arns())).toContain(def.name);
  });

  it('is refused by the local runner when a Task is not mapped', async () => {
    const modified: AslDefinition = structuredClone(definition);
    const [first] = taskStates(modified);
    if (!first) throw new Error('the definition has no Task');
    const state = modified.States[first.state];
    if (state) state.Resource = placeholder('UnmappedFunctionArn');
    override.text = JSON.stringify(modified);
    await expect(localRunner()).rejects.toThrow(/UnmappedFunctionArn.*does not map/);
  });
});
