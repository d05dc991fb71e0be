/**
 * What counts as one webhook URL: the canonical form the same-URL limit compares. WHATWG URL
 * parsing does most of it (scheme and host lower-cased, IDN hosts in punycode, IPv4 written
 * any way as dotted decimal, the default port removed, `.`/`..` segments resolved); on top of
 * that the host loses a trailing dot, the fragment is dropped (it never reaches the receiver),
 * the path loses empty segments (`//`) and a trailing slash, and percent-encoding in path and
 * query is normalised (unreserved characters decoded, other escapes in upper-case hex). The
 * query is kept, in its order: receivers may route on it. Case in path and query is kept.
 */

/** RFC 3986 unreserved characters: their percent-encoded and plain forms are the same URL. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

function normaliseEscapes(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** The canonical form of an absolute http(s) URL (throws on anything `new URL` refuses). */
export function canonicalUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  url.hostname = url.hostname.replace(/\.+$/, '');
  const segments = url.pathname.split('/').filter((s) => s.length > 0);
  url.pathname = `/${segments.map(normaliseEscapes).join('/')}`;
  url.search = url.search === '?' ? '' : normaliseEscapes(url.search);
  return url.href;
}
