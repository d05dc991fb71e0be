/**
 * API errors on screen: the whole message in a banner, and each "field: problem" part of a
 * validation message next to the field it names (the service labels fields by their path,
 * e.g. `config.host: …; config.port: …`).
 */
import type { ApiError } from './api';

export function fieldErrors(error: ApiError | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!error?.message) return out;
  for (const part of error.message.split('; ')) {
    const match = /^([A-Za-z0-9_.[\]-]+): (.+)$/.exec(part);
    if (match?.[1] && match[2]) out[match[1].replace(/^body\./, '')] = match[2];
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
