/**
 * API errors on screen, next to what caused them: each "field: problem" part of a validation
 * message beside the field it names (the service labels fields by their path, e.g.
 * `config.host: …; config.port: …`), an action's refusal beside its button (ActionError), and
 * the banner only for what belongs to the whole page (it could not load).
 */
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from './api';

const FIELD = '[A-Za-z0-9_.[\\]-]+';
/** `config.host: required`, and `config.username, config.password: …` naming several fields. */
const FIELD_PART = new RegExp(`^(${FIELD}(?:, ${FIELD})*): (.+)$`);

/**
 * Each field a validation message names, with its problem, keyed by the field's path (`prefix`
 * put before each, for a form whose fields live under one, e.g. `credentials`). The message's
 * lead-in (`invalid request body: `) is not part of the first field.
 */
export function fieldErrors(error: ApiError | null, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  if (!error?.message) return out;
  const message = error.message.replace(/^invalid [a-z ]+: /, '');
  for (const part of message.split('; ')) {
    const match = FIELD_PART.exec(part);
    if (!match?.[1] || !match[2]) continue;
    for (const name of match[1].split(', ')) out[`${prefix}${name.replace(/^body\./, '')}`] = match[2];
  }
  return out;
}

export function ErrorBanner({ error }: { error: ApiError | null }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <strong>
        {error.statusCode} {error.error}
      </strong>
      : {error.message}
    </div>
  );
}

/**
 * An action's error, rendered right beside the button that caused it and scrolled into view
 * when it appears (a refusal the user cannot see reads as "nothing happened").
 */
export function ActionError({ error }: { error: ApiError | null }) {
  const element = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    element.current?.scrollIntoView?.({ block: 'nearest' });
  }, [error]);
  if (!error) return null;
  return (
    <p class="action-error" role="alert" ref={element}>
      {error.message}
    </p>
  );
}
