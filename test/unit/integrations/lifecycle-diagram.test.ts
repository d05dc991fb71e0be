/**
 * docs/integrations.md draws the lifecycle workflow as a state diagram; it must be the ASL's:
 * every transition of the definition in the diagram, and nothing else.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AslDefinition, readDefinitionText, transitions } from '../../../infra/workflows/definition';
import { workflows } from '../../../shared/catalog/workflows';

const root = join(import.meta.dirname, '..', '..', '..');

/** The transitions of the mermaid diagram that follows the "### The workflow" heading. */
function documented(): string[] {
  const doc = readFileSync(join(root, 'docs', 'integrations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### The workflow'));
  const block = /```mermaid\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const lines = block
    .split('\n')
    .map((l) => /^\s*(\S+) --> ([^:\s]+)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${m[1]} --> ${m[2]}`);
  return [...new Set(lines)].sort();
}

describe('the documented lifecycle workflow', () => {
  it('is the ASL, transition for transition', () => {
    const asl = JSON.parse(readDefinitionText(workflows[0])) as AslDefinition;
    expect(documented().length).toBeGreaterThan(10);
    expect(documented()).toEqual(transitions(asl));
  });
});
