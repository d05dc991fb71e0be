/**
 * Reads a workflow's ASL file and relates its Task states to the catalog's substitution
 * variables. Shared by the CDK workflows construct, the local runner and the tests.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowDef } from '../../shared/catalog/workflows';

const repoRoot = join(import.meta.dirname, '..', '..');

interface AslState {
  Type: string;
  Resource?: string;
  States?: Record<string, AslState>;
  Iterator?: { States: Record<string, AslState> };
  ItemProcessor?: { States: Record<string, AslState> };
  Branches?: { States: Record<string, AslState> }[];
  [key: string]: unknown;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  [key: string]: unknown;
}

export function readDefinitionText(workflow: Pick<WorkflowDef, 'definition'>): string {
  return readFileSync(join(repoRoot, workflow.definition), 'utf8');
}

/** Every Task state (nested ones included) with the `${Variable}` its Resource names. */
export function taskStates(
  definition: AslDefinition,
): { state: string; variable: string | undefined; resource: string }[] {
  const found: { state: string; variable: string | undefined; resource: string }[] = [];
  const visit = (states: Record<string, AslState>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === 'Task') {
        const resource = String(state.Resource ?? '');
        const variable = /^\$\{([A-Za-z0-9_]+)\}$/.exec(resource)?.[1];
        found.push({ state: name, variable, resource });
      }
      if (state.Iterator) visit(state.Iterator.States);
      if (state.ItemProcessor) visit(state.ItemProcessor.States);
      for (const branch of state.Branches ?? []) visit(branch.States);
    }
  };
  visit(definition.States);
  return found;
}

/** Replaces `${Variable}` placeholders with concrete values (ARNs). */
export function substitute(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z0-9_]+)\}/g, (match, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for ${match} in the workflow definition`);
    return value;
  });
}

/**
 * Checks that every Task in the definition names a cataloged variable and that every
 * cataloged variable is used; returns the problems found.
 */
export function mappingProblems(workflow: WorkflowDef, definition: AslDefinition): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const task of taskStates(definition)) {
    if (!task.variable)
      problems.push(`Task ${task.state} has a literal Resource ${task.resource}; use a \${Variable}`);
    else if (!(task.variable in workflow.tasks))
      problems.push(`Task ${task.state} uses \${${task.variable}}, which the catalog does not map`);
    else used.add(task.variable);
  }
  for (const variable of Object.keys(workflow.tasks)) {
    if (!used.has(variable)) problems.push(`catalog variable ${variable} is not used by any Task`);
  }
  return problems;
}

/**
 * Every transition of a definition's top-level states, as `from --> to` (`[*]` is the start and
 * the end): Next, each Choice rule and Default, each Catch, and Succeed/Fail ending the run. The
 * documentation's state diagram is checked against these.
 */
export function transitions(definition: AslDefinition): string[] {
  const out = [`[*] --> ${definition.StartAt}`];
  for (const [name, state] of Object.entries(definition.States)) {
    const next = (to: unknown) => {
      if (typeof to === 'string') out.push(`${name} --> ${to}`);
    };
    for (const rule of (state.Choices as { Next?: unknown }[] | undefined) ?? []) next(rule.Next);
    next(state.Default);
    next(state.Next);
    for (const handler of (state.Catch as { Next?: unknown }[] | undefined) ?? []) next(handler.Next);
    if (state.Type === 'Succeed' || state.Type === 'Fail' || state.End === true) out.push(`${name} --> [*]`);
  }
  return [...new Set(out)].sort();
}
