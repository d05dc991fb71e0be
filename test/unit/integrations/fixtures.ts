/**
 * Valid payloads per registered integration type, from each type's own examples
 * (`shared/platforms/<type>/examples.ts`), each with its own unique host identity so tests that
 * share one local cloud never collide on uniqueness claims.
 */
import { randomBytes } from 'node:crypto';
import type { IntegrationType } from '../../../shared/platforms';
import type { ExampleBody } from '../../../shared/platforms/examples';
import { examplesOf, registeredTypes } from '../../support/platform-examples';

export { serviceAccount } from '../../../shared/platforms/dataset-warehouse/examples';

export const uid = () => randomBytes(5).toString('hex');

export type Payload = ExampleBody;

/** By registered type (a test may also look a type up by a string it iterates). */
type ByType = Record<IntegrationType, Payload> & Record<string, Payload>;

/** A valid create body of every registered type. */
export function payloads(id = uid()): ByType {
  return Object.fromEntries(registeredTypes().map((type) => [type, examplesOf(type).body(id)])) as ByType;
}

/** Privileged delete credentials of every registered type whose setup the service runs. */
export function deleteBodies(id = uid()): Partial<Record<string, Payload>> {
  return Object.fromEntries(
    registeredTypes().flatMap((type) => {
      const body = examplesOf(type).deleteBody?.(id);
      return body ? [[type, body]] : [];
    }),
  );
}

/** Every secret value a payload carries (for redaction checks). */
export function secretValues(payload: Payload): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (
        /password|secret|token|privatekey|credential|accesskeyid|username/i.test(key) &&
        value !== '[REDACTED]'
      )
        found.push(value);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(payload, '');
  return found;
}
