/**
 * Address classification for the SSRF guard, apart from the connector so that API functions
 * that only check a URL at creation time do not bundle the HTTP client.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Only globally routable unicast addresses are public; every special range is refused. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return false;
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  return ipaddr.process(bare).range() === 'unicast';
}

/** A literal IP host (as in a URL: `[::1]`, `127.0.0.1`) or undefined for a name. */
export function literalIp(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) !== 0 ? bare : undefined;
}
