/**
 * A `net.connect` lookup hook that checks every address a name resolves to before a socket
 * connects: the outbound guards (webhook deliveries, integration hosts) run it at connect time,
 * so a name that resolved elsewhere earlier (DNS rebinding) is still refused, and no connection
 * is made.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export type LookupFunction = (
  hostname: string,
  options: { all?: boolean; family?: number | string; hints?: number },
  callback: LookupCallback,
) => void;

export interface LookupGuard {
  /** Whether a connection may go to this address. */
  allowed(address: string): boolean;
  /** The error for a refused name (`address` is for the operators' log, never for the caller). */
  refuse(hostname: string, address: string): Error;
  /** Name resolution (tests inject a resolver to simulate rebinding). */
  resolve?: LookupFunction;
}

/** A lookup that refuses the name if any address it resolves to is not allowed. */
export function guardedLookup(guard: LookupGuard): LookupFunction {
  const resolve = guard.resolve ?? (dnsLookup as unknown as LookupFunction);
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : '');
      const list = addresses as LookupAddress[];
      const blocked = list.find((a) => !guard.allowed(a.address));
      if (blocked || list.length === 0) {
        return callback(guard.refuse(hostname, blocked?.address ?? 'no address'), options.all ? [] : '');
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}
