import { describe, expect, it } from 'vitest';
import { canonicalUrl } from '../../../shared/webhooks/canonical-url';
import { targetKey, targetLabel } from '../../../shared/webhooks/target';

describe("a webhook's target", () => {
  const sent = 'https://Hooks.example.com.:443//in/%61bc/#x';

  it('is keyed by the canonical URL, which names the same-URL counter as before', () => {
    expect(targetKey({ url: sent })).toBe('https://hooks.example.com/in/abc');
    expect(targetKey({ url: sent })).toBe(canonicalUrl(sent));
    expect(targetKey({ url: sent })).toBe(targetKey({ url: 'https://hooks.example.com/in/abc' }));
  });

  it('tells different URLs apart', () => {
    expect(targetKey({ url: 'https://hooks.example.com/in/abc?tenant=2' })).not.toBe(
      targetKey({ url: 'https://hooks.example.com/in/abc' }),
    );
    expect(targetKey({ url: 'http://hooks.example.com/in/abc' })).not.toBe(
      targetKey({ url: 'https://hooks.example.com/in/abc' }),
    );
  });

  it('is shown as the URL the caller sent', () => {
    expect(targetLabel({ url: sent })).toBe(sent);
  });
});
