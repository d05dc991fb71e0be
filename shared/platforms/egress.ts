/**
 * The address guard of integration hosts (issue 24, finding 7). An admin names the hosts the
 * service connects to (warehouse hosts, identity-provider and token endpoints, workspace URLs);
 * without a guard a dry run would make the drivers connect to the cloud's metadata service or
 * scan the internal network. So every connection a platform operation opens goes only to:
 * - a public address; or
 * - a loopback or private address (RFC 1918, shared CGNAT space, IPv6 unique-local), only where
 *   the stage allows it (`allowPrivateIntegrationHosts`: warehouses inside a private network);
 * - never a link-local address (169.254.169.254 and the other metadata endpoints), AWS's IPv6
 *   metadata block, or any other special range.
 *
 * The check runs at connect time on the address the socket will use, for every driver at once:
 * `guardEgress` runs a platform operation in an async scope, and inside that scope every TCP
 * connection (`net.Socket#connect`, which TLS, HTTP agents, undici and the database drivers all
 * end in) checks a literal address before connecting and a name in the `lookup` hook it resolves
 * with — so a name that rebinds to an internal address is refused too, and no packet is sent.
 * Outside a scope sockets are untouched. The sandbox opens no sockets: its driver applies the same
 * rule to the host's literal address (`literalHostAllowed`).
 *
 * A refusal reads the same whatever the address class and whatever would have answered: it never
 * names the address (the operators' log does), so validation messages map nothing internal.
 */
import * as dns from 'node:dns';
import * as net from 'node:net';
import { boolEnv } from '../config/env';
import { addressClass, hostAddress } from '../net/addresses';
import { guardedLookup, type LookupFunction } from '../net/guarded-lookup';
import { logger } from '../observability/logger';
import { egressScopes } from './egress-scope';

/** Off by default: only a stage whose warehouses sit in a private network turns it on. */
const allowPrivateIntegrationHosts = (): boolean => boolEnv('ALLOW_PRIVATE_INTEGRATION_HOSTS', false);

/** Whether an integration may connect to this address under the stage's setting. */
function integrationAddressAllowed(address: string): boolean {
  const kind = addressClass(address);
  return kind === 'public' || (kind === 'private' && allowPrivateIntegrationHosts());
}

/**
 * The sandbox's stand-in for resolution: a literal address (any form the resolver accepts) and
 * `localhost` are checked; any other name is taken as public (the sandbox has no DNS).
 */
export function literalHostAllowed(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const address = name === 'localhost' || name.endsWith('.localhost') ? '127.0.0.1' : hostAddress(name);
  return address === undefined || integrationAddressAllowed(address);
}

class BlockedHostError extends Error {
  override name = 'BlockedHostError';
  readonly code = 'ETARGETBLOCKED';
  constructor(readonly host: string) {
    super(`ETARGETBLOCKED: ${host} is not an address integrations may connect to`);
  }
}

function refuse(host: string, address: string): BlockedHostError {
  const scope = egressScopes.getStore();
  if (scope) scope.refused = true;
  logger.warn('integration host blocked', { host, address });
  return new BlockedHostError(host);
}

type ConnectOptions = net.NetConnectOpts & { host?: string; lookup?: LookupFunction };
type Connect = (this: net.Socket, ...args: unknown[]) => net.Socket;

/** `Socket#connect`'s arguments as options and callback (undefined for IPC paths: not network). */
function tcpArguments(args: unknown[]): [ConnectOptions, unknown] | undefined {
  // `net.connect` passes its normalised [options, callback] pair as one argument.
  const [first, ...rest] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  if (typeof first === 'object' && first !== null) {
    const options = first as ConnectOptions;
    // As Node decides: a non-empty string path is a pipe (HTTP agents pass `path: null`).
    const path = (options as { path?: unknown }).path;
    return typeof path === 'string' && path !== '' ? undefined : [options, rest[0]];
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const host = typeof rest[0] === 'string' ? rest[0] : undefined;
    return [
      { port: Number(first), ...(host ? { host } : {}) },
      typeof rest[0] === 'function' ? rest[0] : rest[1],
    ];
  }
  return undefined;
}

let installed = false;

function installSocketGuard(): void {
  if (installed) return;
  installed = true;
  const original = net.Socket.prototype.connect as unknown as Connect;
  const guarded: Connect = function (this: net.Socket, ...args: unknown[]) {
    const tcp = egressScopes.getStore() ? tcpArguments(args) : undefined;
    if (!tcp) return original.apply(this, args);
    const [options, callback] = tcp;
    const host = options.host ?? 'localhost';
    const address = hostAddress(host);
    if (address !== undefined) {
      if (integrationAddressAllowed(address)) return original.apply(this, args);
      const error = refuse(host, address);
      process.nextTick(() => this.destroy(error));
      return this;
    }
    const lookup = guardedLookup({
      allowed: integrationAddressAllowed,
      refuse,
      resolve: options.lookup ?? (dns.lookup as unknown as LookupFunction),
    });
    return original.call(this, { ...options, lookup }, callback);
  };
  net.Socket.prototype.connect = guarded as unknown as typeof net.Socket.prototype.connect;
}

/** Runs a platform operation with every connection it opens under the address guard. */
export function guardEgress<T>(operation: () => T): T {
  installSocketGuard();
  return egressScopes.run({}, operation);
}
