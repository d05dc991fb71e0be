/**
 * Forms built from a platform type's JSON Schema (the served /openapi.json): defaults filled
 * in, required fields marked (also those the document requires in a mode, such as automatic
 * setup), secrets as password inputs, variants (`oneOf` told apart by a `const` property such
 * as `authenticationType`) as a choice that swaps the conditional fields. A stored secret (the
 * API's redaction placeholder) shows as "stored", never as the placeholder's text: left empty
 * it is sent back as the placeholder, which keeps it. Field errors from the API are shown next
 * to the field they name (by path), linked to it for assistive technology.
 */
import type { JSX } from 'preact';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped data
export type Schema = Record<string, any>;
export type Value = Record<string, unknown>;

const SECRET = /password|secret|privatekey|token|credential|apikey/i;

/** What the API returns in place of a secret (and takes back as "keep the stored value"). */
export const REDACTED = '[REDACTED]';

/** The field ids (`config.password`) whose value is the redaction placeholder. */
export function storedSecrets(value: unknown, path: string): Set<string> {
  const out = new Set<string>();
  if (value === REDACTED) out.add(path);
  else if (value && typeof value === 'object' && !Array.isArray(value))
    for (const [k, v] of Object.entries(value)) for (const p of storedSecrets(v, `${path}.${k}`)) out.add(p);
  return out;
}

/** The variants of a `oneOf`, each named by its `const` discriminator (property and value). */
function variants(schema: Schema): { key: string; value: string; schema: Schema }[] {
  const alts: Schema[] = schema.oneOf ?? schema.anyOf ?? [];
  const out: { key: string; value: string; schema: Schema }[] = [];
  for (const alt of alts) {
    const entry = Object.entries(alt.properties ?? {}).find(([, p]) => (p as Schema).const !== undefined);
    if (entry) out.push({ key: entry[0], value: String((entry[1] as Schema).const), schema: alt });
  }
  return out;
}

/** Words kept in capitals when a field name becomes a label. */
const ACRONYMS = new Set([
  'api',
  'arn',
  'aws',
  'gcp',
  'http',
  'https',
  'iam',
  'id',
  'idp',
  'ip',
  'json',
  'kms',
  'sql',
  'ssl',
  'tls',
  'url',
  'uri',
]);

/**
 * How a field is labelled: the schema's `title` when it has one, else its name in words
 * (`initialDatabase` → "Initial database", `httpPath` → "HTTP path"). The raw name stays the
 * field's id, so an API error naming `config.initialDatabase` still finds it.
 */
export function fieldLabel(name: string, prop?: Schema): string {
  if (typeof prop?.title === 'string' && prop.title) return prop.title;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .split(' ')
    .filter(Boolean)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  const [first = name, ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/** The variant `value` matches (by its discriminator), else the first. */
export function pickVariant(schema: Schema, value: Value): Schema {
  const vs = variants(schema);
  return vs.find((v) => value[v.key] === v.value)?.schema ?? vs[0]?.schema ?? schema;
}

/** A value with every default of the schema (and the chosen variant's discriminator) filled in. */
export function defaults(schema: Schema, value: Value = {}): Value {
  const chosen = schema.oneOf || schema.anyOf ? pickVariant(schema, value) : schema;
  const out: Value = { ...value };
  for (const [name, raw] of Object.entries(chosen.properties ?? {})) {
    const prop = raw as Schema;
    if (prop.const !== undefined) out[name] = prop.const;
    else if (out[name] === undefined && prop.default !== undefined) out[name] = structuredClone(prop.default);
    else if (prop.type === 'object' && prop.properties && typeof out[name] === 'object' && out[name] !== null)
      out[name] = defaults(prop, out[name] as Value);
  }
  return out;
}

/** Drops empty optional strings so the API sees "absent", not "". */
export function compact(value: Value): Value {
  const out: Value = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === '' || v === undefined) continue;
    out[k] = v && typeof v === 'object' && !Array.isArray(v) ? compact(v as Value) : v;
  }
  return out;
}

interface FieldsProps {
  schema: Schema;
  value: Value;
  onChange: (value: Value) => void;
  path: string;
  errors: Record<string, string>;
  /** Field paths that may not change (non-editable attributes on edit). */
  locked?: ReadonlySet<string> | undefined;
  /** Field paths required beyond the schema's own list (e.g. by automatic setup). */
  alsoRequired?: ReadonlySet<string> | undefined;
  /** Field paths holding a stored secret (the value is the redaction placeholder). */
  stored?: ReadonlySet<string> | undefined;
}

export function SchemaFields({
  schema,
  value,
  onChange,
  path,
  errors,
  locked,
  alsoRequired,
  stored,
}: FieldsProps) {
  const vs = variants(schema);
  const chosen = vs.length > 0 ? pickVariant(schema, value) : schema;
  const required = new Set<string>(chosen.required ?? []);
  for (const name of Object.keys(chosen.properties ?? {}))
    if (alsoRequired?.has(`${path}.${name}`.replace(/^\./, ''))) required.add(name);
  const rows: JSX.Element[] = [];
  const discriminator = vs[0]?.key;
  if (vs.length > 1 && discriminator) {
    const id = `${path}.${discriminator}`;
    const error = errors[id.replace(/^\./, '')];
    rows.push(
      <div class="field" key={id}>
        <label for={id}>
          {fieldLabel(discriminator)}
          <abbr title="required"> *</abbr>
        </label>
        <select
          id={id}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          value={String(value[discriminator] ?? vs[0]?.value)}
          disabled={locked?.has(id.replace(/^\./, ''))}
          onChange={(e) =>
            onChange(
              defaults(schema, {
                ...value,
                [discriminator]: (e.target as HTMLSelectElement).value,
              }),
            )
          }
        >
          {vs.map((v) => (
            <option value={v.value}>{v.value}</option>
          ))}
        </select>
        {error && (
          <span class="field-error" id={`${id}-error`}>
            {error}
          </span>
        )}
      </div>,
    );
  }
  for (const [name, raw] of Object.entries(chosen.properties ?? {})) {
    const prop = raw as Schema;
    if (prop.const !== undefined) continue;
    const id = `${path}.${name}`;
    const set = (v: unknown) => onChange({ ...value, [name]: v });
    const label = (
      <label for={id}>
        {fieldLabel(name, prop)}
        {required.has(name) && <abbr title="required"> *</abbr>}
      </label>
    );
    const key = id.replace(/^\./, '');
    const error = errors[key];
    const isStored = stored?.has(key) ?? false;
    const hint = error ? (
      <span class="field-error" id={`${id}-error`}>
        {error}
      </span>
    ) : isStored ? (
      <span class="hint" id={`${id}-hint`}>
        Stored: leave empty to keep it, or type a new value.
      </span>
    ) : prop.description ? (
      <span class="hint">{prop.description}</span>
    ) : null;
    const common = {
      id,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': error ? `${id}-error` : isStored ? `${id}-hint` : undefined,
      'aria-required': required.has(name) || undefined,
      disabled: locked?.has(key),
    };
    if (prop.type === 'object' && prop.properties) {
      rows.push(
        <fieldset key={id}>
          <legend>{fieldLabel(name, prop)}</legend>
          <SchemaFields
            schema={prop}
            value={(value[name] as Value) ?? {}}
            onChange={set}
            path={id}
            errors={errors}
            locked={locked}
            alsoRequired={alsoRequired}
            stored={stored}
          />
        </fieldset>,
      );
    } else if (prop.type === 'boolean') {
      rows.push(
        <div class="field check" key={id}>
          <input
            type="checkbox"
            {...common}
            checked={Boolean(value[name])}
            onChange={(e) => set((e.target as HTMLInputElement).checked)}
          />
          {label}
          {hint}
        </div>,
      );
    } else if (prop.enum) {
      rows.push(
        <div class="field" key={id}>
          {label}
          <select
            {...common}
            value={String(value[name] ?? '')}
            onChange={(e) => set((e.target as HTMLSelectElement).value)}
          >
            {!required.has(name) && <option value="">—</option>}
            {(prop.enum as string[]).map((o) => (
              <option value={o}>{o}</option>
            ))}
          </select>
          {hint}
        </div>,
      );
    } else if (prop.type === 'integer' || prop.type === 'number') {
      rows.push(
        <div class="field" key={id}>
          {label}
          <input
            type="number"
            {...common}
            value={value[name] === undefined ? '' : String(value[name])}
            onInput={(e) => {
              const text = (e.target as HTMLInputElement).value;
              set(text === '' ? undefined : Number(text));
            }}
          />
          {hint}
        </div>,
      );
    } else if (prop.type === 'array') {
      rows.push(
        <div class="field" key={id}>
          {label}
          <input
            type="text"
            {...common}
            placeholder="comma-separated"
            value={Array.isArray(value[name]) ? (value[name] as unknown[]).join(', ') : ''}
            onInput={(e) =>
              set(
                (e.target as HTMLInputElement).value
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              )
            }
          />
          {hint}
        </div>,
      );
    } else {
      // A stored secret shows empty with "stored"; emptied again, it goes back to the placeholder.
      const shown = value[name] === undefined || value[name] === REDACTED ? '' : String(value[name]);
      const input = (e: Event) => {
        const text = (e.target as HTMLInputElement).value;
        set(text === '' && isStored ? REDACTED : text);
      };
      rows.push(
        <div class="field" key={id}>
          {label}
          {SECRET.test(name) ? (
            <input
              type="password"
              autocomplete="new-password"
              placeholder={isStored ? 'stored' : undefined}
              {...common}
              value={shown}
              onInput={input}
            />
          ) : (
            <input
              type="text"
              autocomplete="off"
              placeholder={isStored ? 'stored' : undefined}
              {...common}
              value={shown}
              onInput={input}
            />
          )}
          {hint}
        </div>,
      );
    }
  }
  return <>{rows}</>;
}
