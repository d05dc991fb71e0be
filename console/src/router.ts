/** Hash routes (#/integrations/5): deep links work behind any static host without rewrites. */
import { signal } from '@preact/signals';

const current = () => window.location.hash.replace(/^#/, '') || '/';
export const route = signal(current());
window.addEventListener('hashchange', () => {
  route.value = current();
});

export function navigate(path: string): void {
  window.location.hash = path;
}

/** A path segment decoded, or undefined when its percent-encoding is malformed (`%`, `%E0%A4`). */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * `match('/integrations/:id', '/integrations/5')` → `{ id: '5' }`, or null. A parameter that
 * is not valid percent-encoding does not match (the hash is whatever the address bar holds; it
 * must never stop the console from rendering).
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('?')[0]?.split('/') ?? [];
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i] as string;
    if (part.startsWith(':')) {
      const value = decoded(s[i] as string);
      if (value === undefined) return null;
      params[part.slice(1)] = value;
    } else if (part !== s[i]) return null;
  }
  return params;
}
