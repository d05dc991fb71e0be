/**
 * Filters against a brute-force reference: 1,000 generated notifications of mixed types (with
 * metadata keys present, absent or null), each filter paired with a plain TypeScript predicate
 * written from CEL's semantics (a missing key is an error; `&&` and `||` absorb an error when the
 * other side decides; an error is no match). Every verdict — match, no match, error — must agree.
 */
import { describe, expect, it } from 'vitest';
import { filterDecision } from '../../../shared/webhooks/filter';
import type { DeliveryPayload } from '../../../shared/webhooks/history-model';

/** CEL's three outcomes. */
type Verdict = true | false | 'error';
const ERR = 'error' as const;

const and = (a: Verdict, b: Verdict): Verdict =>
  a === false || b === false ? false : a === ERR || b === ERR ? ERR : true;
const or = (a: Verdict, b: Verdict): Verdict =>
  a === true || b === true ? true : a === ERR || b === ERR ? ERR : false;
const not = (a: Verdict): Verdict => (a === ERR ? ERR : !a);

/** A metadata value, or the error of a missing key. */
function get(payload: DeliveryPayload, key: string): unknown {
  return key in payload.metadata ? payload.metadata[key] : ERR;
}
const test = (value: unknown, predicate: (v: never) => boolean): Verdict =>
  value === ERR ? ERR : predicate(value as never);

const FILTERS: [string, (p: DeliveryPayload) => Verdict][] = [
  [
    'metadata.notificationType == "modelAccessRequested" && metadata.dataSourceId in [42, 43]',
    (p) =>
      and(
        p.metadata.notificationType === 'modelAccessRequested',
        test(get(p, 'dataSourceId'), (v: number) => v === 42 || v === 43),
      ),
  ],
  [
    'has(metadata.dataSourceId) && metadata.dataSourceId >= 43',
    (p) =>
      and(
        'dataSourceId' in p.metadata,
        test(get(p, 'dataSourceId'), (v: number) => v >= 43),
      ),
  ],
  [
    'text.contains("Sales") || metadata.actionBy == 7',
    (p) =>
      or(
        p.text.includes('Sales'),
        test(get(p, 'actionBy'), (v: number) => v === 7),
      ),
  ],
  [
    '!(metadata.notificationType in ["userCreated", "tagCreated"]) && webhookName.startsWith("hook")',
    (p) =>
      and(
        not(['userCreated', 'tagCreated'].includes(String(p.metadata.notificationType))),
        p.webhookName.startsWith('hook'),
      ),
  ],
  [
    'metadata.projectName == null ? text.endsWith("!") : metadata.projectName.startsWith("P")',
    (p) => {
      const name = get(p, 'projectName');
      if (name === ERR) return ERR;
      return name === null ? p.text.endsWith('!') : String(name).startsWith('P');
    },
  ],
  [
    'size(metadata.tags) > 1 && "pii" in metadata.tags',
    (p) =>
      and(
        test(get(p, 'tags'), (v: string[]) => v.length > 1),
        test(get(p, 'tags'), (v: string[]) => v.includes('pii')),
      ),
  ],
  [
    'webhookId == 3 || metadata.actionBy < 5',
    (p) =>
      or(
        p.webhookId === 3,
        test(get(p, 'actionBy'), (v: number) => v < 5),
      ),
  ],
];

/** A small deterministic generator (mulberry32), so a failure can be reproduced. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['modelAccessRequested', 'modelAccessApproved', 'userCreated', 'tagCreated', 'webhookFailing'];
const TEXTS = ['Sales data requested', 'Access granted!', 'A tag was created', 'Marketing', 'Done!'];

function generate(count: number): DeliveryPayload[] {
  const next = random(26);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    const metadata: Record<string, unknown> = { notificationType: pick(TYPES) };
    if (next() < 0.7) metadata.actionBy = Math.floor(next() * 10);
    if (next() < 0.5) metadata.dataSourceId = 40 + Math.floor(next() * 6);
    const project = next();
    if (project < 0.3) metadata.projectName = null;
    else if (project < 0.7) metadata.projectName = pick(['Payroll', 'Sales', 'Pricing']);
    if (next() < 0.5) metadata.tags = ['pii', 'finance', 'public'].filter(() => next() < 0.6);
    return {
      text: pick(TEXTS),
      metadata,
      webhookId: 3 + (i % 2),
      webhookName: pick(['hook-a', 'other']),
    };
  });
}

describe('filters against a brute-force reference', () => {
  const notifications = generate(1000);

  it('agree with the reference on every one of 1,000 generated notifications', () => {
    const seen = new Set<string>();
    const disagreements: string[] = [];
    FILTERS.forEach(([source, reference], n) => {
      for (const payload of notifications) {
        const expected = reference(payload);
        const decision = filterDecision({ id: 900 + n, updatedAt: 'v1', filter: source }, payload);
        const actual: Verdict = decision.matched ? true : 'error' in decision ? ERR : false;
        seen.add(String(actual));
        if (actual !== expected)
          disagreements.push(
            `${source} on ${JSON.stringify(payload)}: ${JSON.stringify(decision)}, expected ${expected}`,
          );
      }
    });
    expect(disagreements.slice(0, 5)).toEqual([]);
    // The set exercises all three outcomes.
    expect([...seen].sort()).toEqual(['error', 'false', 'true']);
  });
});
