/**
 * Forms built from a platform type's JSON Schema (the served /openapi.json): defaults filled
 * in, required fields marked, secrets as password inputs, variants (`oneOf` told apart by a
 * `const` property such as `authenticationType`) as a choice that swaps the conditional fields.
 * Field errors from the API are shown next to the field they name (by path).
 */
import type { JSX } from 'preact';

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is untyped data
export type Schema = Record<string, any>;
export type Value = Record<string, unknown>;

const SECRET = /password|secret|privatekey|token|credential|apikey/i;

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

/** The variant `value` matches (by its discriminator), else the first. */
function pickVariant(schema: Schema, value: Value): Schema {
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
}

export function SchemaFields({ schema, value, onChange, path, errors, locked }: FieldsProps) {
  const vs = variants(schema);
  const chosen = vs.length > 0 ? pickVariant(schema, value) : schema;
  const required = new Set<string>(chosen.required ?? []);
  const rows: JSX.Element[] = [];
  const discriminator = vs[0]?.key;
  if (vs.length > 1 && discriminator) {
    const id = `${path}.${discriminator}`;
    rows.push(
      <div class="field" key={id}>
        <label for={id}>
          {discriminator} <span aria-hidden="true">*</span>
        </label>
        <select
          id={id}
          value={String(value[discriminator] ?? vs[0]?.value)}
          disabled={locked?.has(id)}
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
        {name}
        {required.has(name) && <abbr title="required"> *</abbr>}
      </label>
    );
    const error = errors[id.replace(/^\./, '')];
    const hint = error ? (
      <span class="field-error" id={`${id}-error`} role="alert">
        {error}
      </span>
    ) : prop.description ? (
      <span class="hint">{prop.description}</span>
    ) : null;
    const common = {
      id,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': error ? `${id}-error` : undefined,
      'aria-required': required.has(name) || undefined,
      disabled: locked?.has(id.replace(/^\./, '')),
    };
    if (prop.type === 'object' && prop.properties) {
      rows.push(
        <fieldset key={id}>
          <legend>{name}</legend>
          <SchemaFields
            schema={prop}
            value={(value[name] as Value) ?? {}}
            onChange={set}
            path={id}
            errors={errors}
            locked={locked}
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
      rows.push(
        <div class="field" key={id}>
          {label}
          {SECRET.test(name) ? (
            <input
              type="password"
              autocomplete="new-password"
              {...common}
              value={value[name] === undefined ? '' : String(value[name])}
              onInput={(e) => set((e.target as HTMLInputElement).value)}
            />
          ) : (
            <input
              type="text"
              autocomplete="off"
              {...common}
              value={value[name] === undefined ? '' : String(value[name])}
              onInput={(e) => set((e.target as HTMLInputElement).value)}
            />
          )}
          {hint}
        </div>,
      );
    }
  }
  return <>{rows}</>;
}
