/**
 * The SSRF guard. Webhook URLs are chosen by users, so outside the local stage a delivery must
 * never reach loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved or
 * translated (IPv4-mapped, NAT64, 6to4, Teredo) addresses.
 *
 * The check runs inside the socket connector, on the addresses the connection will actually
 * use: literal IP hosts before `net.connect`, names in the `lookup` hook `net.connect` calls.
 * A name that resolves to a public address when the webhook is created and to 127.0.0.1 when
 * it is delivered (DNS rebinding) is therefore still refused, and no connection is made.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { buildConnector } from 'undici';
import { logger } from '../../observability/logger';
import { isPublicAddress, literalIp } from './addresses';

export { isPublicAddress } from './addresses';

/**
 * A refused target. The message (which the history stores and the webhook's owner reads) never
 * names the address: otherwise a user could map internal names to addresses by pointing webhooks
 * at them. The address goes to the operators' log only.
 */
export class BlockedTargetError extends Error {
  override name = 'BlockedTargetError';
  readonly code = 'ETARGETBLOCKED';
  constructor() {
    super('the webhook target is not a public address');
  }
}

/** The refusal for `host`, with the address it resolved to logged for operators. */
function blockedTarget(host: string, address: string): BlockedTargetError {
  logger.warn('webhook target blocked', { host, address });
  return new BlockedTargetError();
}

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

/** A `net.connect` lookup that refuses the name if any address it resolves to is not public. */
function guardedLookup(resolve: LookupFunction = dnsLookup as unknown as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, options.all ? [] : '');
      const list = addresses as LookupAddress[];
      const blocked = list.find((a) => !isPublicAddress(a.address));
      if (blocked || list.length === 0) {
        return callback(blockedTarget(hostname, blocked?.address ?? 'no address'), options.all ? [] : '');
      }
      if (options.all) return callback(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export interface ConnectorOptions {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Name resolution (tests inject a resolver to simulate rebinding). */
  resolve?: LookupFunction;
}

/** An undici connector that applies the guard at connect time (or not, when private targets are allowed). */
export function webhookConnector(options: ConnectorOptions): buildConnector.connector {
  if (options.allowPrivate) return buildConnector({ timeout: options.connectTimeoutMs });
  const base = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(options.resolve),
  } as buildConnector.BuildOptions);
  return (connectOptions, callback) => {
    const ip = literalIp(connectOptions.hostname);
    if (ip !== undefined && !isPublicAddress(ip)) {
      callback(blockedTarget(connectOptions.hostname, ip), null);
      return;
    }
    base(connectOptions, callback);
  };
}
