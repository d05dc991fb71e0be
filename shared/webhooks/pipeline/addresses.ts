/**
 * Address classification for the SSRF guard, apart from the connector so that API functions
 * that only check a URL at creation time do not bundle the HTTP client.
 *
 * An address is public only when it is globally routable unicast per the IANA special-purpose
 * address registries (IPv4: RFC 6890 + updates; IPv6: the same registry plus the global
 * unicast allocation 2000::/3). ipaddr.js's `range()` names most special ranges; the table
 * below adds what it calls `unicast` although the registries do not (for example the
 * deprecated IPv4-compatible block ::/96, which would carry ::127.0.0.1 to loopback on some
 * stacks, and the documentation prefix 3fff::/20).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** IPv6 outside 2000::/3 is never global unicast (::/96, 100::/64, 5f00::/16, fc00::/7 …). */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Non-global blocks inside 2000::/3 (IANA IPv6 special-purpose registry). */
const SPECIAL_V6 = [
  '2001::/23', // IETF protocol assignments: Teredo, benchmarking, AMT, AS112, ORCHID, …
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '2620:4f:8000::/48', // AS112 direct delegation
  '3fff::/20', // documentation
].map((cidr) => ipaddr.parseCIDR(cidr));

function isGlobalV6(address: ipaddr.IPv6): boolean {
  if (address.range() !== 'unicast') return false;
  if (!address.match(GLOBAL_UNICAST_V6)) return false;
  return !SPECIAL_V6.some((block) => address.match(block));
}

/** Only globally routable unicast addresses are public; every special range is refused. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return false;
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv6') return isGlobalV6(parsed as ipaddr.IPv6);
  return parsed.range() === 'unicast';
}

/** A literal IP host (as in a URL: `[::1]`, `127.0.0.1`) or undefined for a name. */
export function literalIp(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) !== 0 ? bare : undefined;
}
