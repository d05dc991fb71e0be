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

/** `match('/integrations/:id', '/integrations/5')` → `{ id: '5' }`, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('?')[0]?.split('/') ?? [];
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(s[i] as string);
    else if (part !== s[i]) return null;
  }
  return params;
}
