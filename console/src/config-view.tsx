/**
 * A stored configuration as labelled fields (never raw JSON): in the order of the type's schema
 * (its variant's, for a config with an authentication type), each labelled in words with the
 * schema's description as help; nested objects as groups, lists joined, flags as yes/no, and a
 * stored secret as "stored" (the API's redaction placeholder is never shown as if it were the
 * value). Fields the schema does not know (an older config) follow in their stored order.
 */
import { fieldLabel, pickVariant, REDACTED, type Schema } from './schema-form';

function shown(value: unknown) {
  if (value === REDACTED) return <span class="badge muted">stored</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? <span class="muted">none</span> : value.join(', ');
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  return String(value);
}

/** The schema's properties for this value (its variant's, when the schema has variants). */
function propertiesOf(schema: Schema | undefined, config: Record<string, unknown>): Record<string, Schema> {
  if (!schema) return {};
  const chosen = schema.oneOf || schema.anyOf ? pickVariant(schema, config) : schema;
  return (chosen.properties ?? {}) as Record<string, Schema>;
}

export function ConfigView({
  config,
  schema,
  label = 'Configuration',
}: {
  config: Record<string, unknown>;
  /** The JSON Schema of the config (from the served OpenAPI document), for order, labels and help. */
  schema?: Schema | undefined;
  label?: string;
}) {
  const properties = propertiesOf(schema, config);
  const names = [
    ...Object.keys(properties).filter((name) => name in config),
    ...Object.keys(config).filter((name) => !(name in properties)),
  ];
  return (
    <dl class="config" aria-label={label}>
      {names.map((name) => {
        const value = config[name];
        const prop = properties[name];
        const title = fieldLabel(name, prop);
        const help = typeof prop?.description === 'string' ? prop.description : undefined;
        return (
          <>
            <dt key={`${name}:t`} title={name}>
              {title}
            </dt>
            {value && typeof value === 'object' && !Array.isArray(value) ? (
              <dd key={`${name}:d`}>
                <ConfigView config={value as Record<string, unknown>} schema={prop} label={title} />
              </dd>
            ) : (
              <dd key={`${name}:d`} class={name.toLowerCase().includes('url') ? 'url' : undefined}>
                {shown(value)}
                {help && <span class="hint">{help}</span>}
              </dd>
            )}
          </>
        );
      })}
    </dl>
  );
}
