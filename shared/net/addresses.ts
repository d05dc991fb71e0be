/**
 * Address classification for the outbound guards (webhook deliveries, integration hosts), apart
 * from the connectors so that API functions that only check a URL at creation time do not bundle
 * the HTTP client.
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

/** The ranges a stage may open to integration hosts (warehouses inside a private network). */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal']);

/** The IPv6 block of AWS's instance metadata and link services (fd00:ec2::254 and others). */
const METADATA_V6 = ipaddr.parseCIDR('fd00:ec2::/32');

/**
 * How an integration may reach an address: `public` (globally routable), `private` (loopback,
 * RFC 1918, shared CGNAT space, IPv6 unique-local: only where the stage allows them), or
 * `forbidden` (everything else: link-local with the 169.254.169.254 metadata service, AWS's IPv6
 * metadata block, unspecified, multicast, broadcast, reserved and translation ranges, …).
 */
export function addressClass(address: string): 'public' | 'private' | 'forbidden' {
  if (isPublicAddress(address)) return 'public';
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return 'forbidden';
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(METADATA_V6)) return 'forbidden';
  return PRIVATE_RANGES.has(parsed.range()) ? 'private' : 'forbidden';
}

/**
 * The address a host names without resolution: an IP literal in any form the resolver accepts
 * (`127.0.0.1`, `[::1]`, and the inet_aton forms `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`),
 * or undefined for a name.
 */
export function hostAddress(host: string): string | undefined {
  const literal = literalIp(host);
  if (literal !== undefined) return literal;
  return ipaddr.IPv4.isValid(host) ? ipaddr.IPv4.parse(host).toString() : undefined;
}
