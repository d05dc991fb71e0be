/**
 * A stored configuration as labelled fields (never raw JSON): nested objects as groups, lists
 * joined, flags as yes/no, and a stored secret as "stored" (the API's redaction placeholder is
 * never shown as if it were the value).
 */
import { REDACTED } from './schema-form';

function shown(value: unknown) {
  if (value === REDACTED) return <span class="badge muted">stored</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? <span class="muted">none</span> : value.join(', ');
  if (value === null || value === undefined || value === '') return <span class="muted">—</span>;
  return String(value);
}

export function ConfigView({
  config,
  label = 'Configuration',
}: {
  config: Record<string, unknown>;
  label?: string;
}) {
  return (
    <dl class="config" aria-label={label}>
      {Object.entries(config).map(([name, value]) =>
        value && typeof value === 'object' && !Array.isArray(value) ? (
          <>
            <dt key={`${name}:t`}>{name}</dt>
            <dd key={`${name}:d`}>
              <ConfigView config={value as Record<string, unknown>} label={name} />
            </dd>
          </>
        ) : (
          <>
            <dt key={`${name}:t`}>{name}</dt>
            <dd key={`${name}:d`} class={name.toLowerCase().includes('url') ? 'url' : undefined}>
              {shown(value)}
            </dd>
          </>
        ),
      )}
    </dl>
  );
}
