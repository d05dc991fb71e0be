/**
 * Messages are worded for people, not parsers (issue 34 §5): every request part of every route
 * contract, and the notification message, is fed wrong values field by field (nested objects,
 * list entries and each option of a discriminated union included), and no message may carry
 * zod's own wording ("Invalid input: expected boolean, received string", "Too small: expected
 * number to be >0", "Invalid option", "Invalid ISO datetime" …).
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import type { RouteKey } from '../../../shared/catalog/routes';
import { NotificationMessageSchema } from '../../../shared/notifications/message';
import { contracts } from '../../../shared/openapi/contracts';
import { describeIssues } from '../../../shared/validation';
import { WebhookPatchSchema } from '../../../shared/webhooks/model';

const PARSER_TEXT =
  /Invalid input|Invalid option|Invalid discriminator|Invalid (string|number|ISO|email|URL|UUID|key|value)|Too (small|big)|Unrecognized key|expected [a-z]+, received|expected [a-z]+ to (be|have)/;

const WRONG: readonly unknown[] = [
  true,
  'x',
  '',
  -1,
  0,
  1e-300,
  1.5,
  1e20,
  [],
  {},
  null,
  'ZZ-not-an-option',
  '2026-01-01T00:00:00',
];

type Def = { type: string; [k: string]: unknown };
const defOf = (schema: z.ZodMiniType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional / nullable / default / pipe / readonly wrappers. */
function unwrap(schema: z.ZodMiniType): z.ZodMiniType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    const inner = (def.innerType ?? (def.type === 'pipe' ? def.in : undefined)) as z.ZodMiniType | undefined;
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** Inputs that are wrong in one place each: every field (recursively) set to each wrong value. */
function* wrongInputs(schema: z.ZodMiniType, depth = 0): Generator<unknown> {
  for (const value of WRONG) yield value;
  if (depth > 4) return;
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'object') {
    for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodMiniType>)) {
      for (const value of wrongInputs(field, depth + 1)) yield { [key]: value };
    }
  } else if (def.type === 'array') {
    for (const value of wrongInputs(def.element as z.ZodMiniType, depth + 1)) yield [value];
  } else if (def.type === 'union') {
    const discriminator = def.discriminator as string | undefined;
    for (const option of def.options as z.ZodMiniType[]) {
      const optionDef = defOf(unwrap(option));
      const tag =
        discriminator && optionDef.type === 'object'
          ? defOf((optionDef.shape as Record<string, z.ZodMiniType>)[discriminator] as z.ZodMiniType)
          : undefined;
      const tagValue = (tag?.values as unknown[] | undefined)?.[0];
      for (const value of wrongInputs(option, depth + 1)) {
        yield discriminator && value !== null && typeof value === 'object' && !Array.isArray(value)
          ? { [discriminator]: tagValue, ...value }
          : value;
      }
    }
  }
}

function part(key: RouteKey, name: 'body' | 'query' | 'documentedBody'): z.ZodMiniType {
  const schema = contracts[key]?.[name];
  if (!schema) throw new Error(`${key} has no ${name}`);
  return schema;
}

function messagesFor(schema: z.ZodMiniType): string[] {
  const messages: string[] = [];
  for (const input of wrongInputs(schema)) {
    const result = schema.safeParse(input);
    if (!result.success) messages.push(describeIssues(result.error.issues));
  }
  return messages;
}

describe('validation messages are worded for people', () => {
  const parts: [string, z.ZodMiniType][] = [['notification message', NotificationMessageSchema]];
  for (const [key, contract] of Object.entries(contracts)) {
    for (const part of ['params', 'query', 'body', 'documentedBody'] as const) {
      const schema = contract[part];
      if (schema) parts.push([`${key} ${part}`, schema]);
    }
  }

  it.each(parts)('%s: no parser wording in any message', (_name, schema) => {
    const messages = messagesFor(schema);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).not.toMatch(PARSER_TEXT);
  });

  it('says what each kind of mistake needs', () => {
    const body = part('POST /integrations', 'body');
    const said = (schema: z.ZodMiniType, input: unknown) => {
      const result = schema.safeParse(input);
      return result.success ? '' : describeIssues(result.error.issues);
    };
    expect(said(body, { type: 'ObjectStore', autoBootstrap: 'yes' })).toContain(
      'autoBootstrap: must be true or false',
    );
    expect(
      said(body, {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { host: 'h.example', database: 'd', authenticationType: 'password' },
      }),
    ).toContain('config.authenticationType: must be one of userPassword, accessKey, idp');
    const history = part('GET /webhooks/history', 'query');
    expect(said(history, { includeGlobal: 'yes' })).toContain('includeGlobal: must be true or false');
    expect(said(history, { since: '2026-01-01T00:00:00' })).toMatch(
      /since: must be an ISO 8601 date and time with a time zone/,
    );
    const webhook = {
      name: 'n',
      url: 'https://r.example/h',
      global: false,
      notificationType: ['userCreated'],
    };
    const create = part('POST /webhooks', 'documentedBody');
    expect(said(create, { webhooks: [webhook] })).toContain('actionType: required');
    expect(
      said(create, { webhooks: [{ ...webhook, actionType: 'triggered', maxDeliveriesPerSecond: 0 }] }),
    ).toMatch(/maxDeliveriesPerSecond: must be (greater than|at least)/);
    expect(said(WebhookPatchSchema, { name: 'n', secret: 'whsec_x' })).toBe(
      '(body): unknown field(s) secret (a secret is changed with POST /webhooks/{id}/secret/rotate, not with PATCH)',
    );
    expect(
      said(NotificationMessageSchema, {
        notificationType: 'userCreatd',
        text: 't',
        timestamp: new Date().toISOString(),
      }),
    ).toContain('unknown notification type "userCreatd" (did you mean userCreated?)');
  });
});
