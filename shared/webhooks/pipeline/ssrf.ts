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
import type { buildConnector as BuildConnector } from 'undici';
import { isPublicAddress, literalIp } from '../../net/addresses';
import { guardedLookup, type LookupFunction } from '../../net/guarded-lookup';
import { buildConnector } from '../../net/undici-core';
import { logger } from '../../observability/logger';

export { isPublicAddress } from '../../net/addresses';
export type { LookupFunction } from '../../net/guarded-lookup';

/**
 * A refused target. The message (which the history stores and the webhook's owner reads) never
 * names the address: otherwise a user could map internal names to addresses by pointing webhooks
 * at them. The address goes to the operators' log only.
 */
class BlockedTargetError extends Error {
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

export interface ConnectorOptions {
  allowPrivate: boolean;
  connectTimeoutMs: number;
  /** Name resolution (tests inject a resolver to simulate rebinding). */
  resolve?: LookupFunction;
}

/** An undici connector that applies the guard at connect time (or not, when private targets are allowed). */
export function webhookConnector(options: ConnectorOptions): BuildConnector.connector {
  if (options.allowPrivate) return buildConnector({ timeout: options.connectTimeoutMs });
  const base = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup({
      allowed: isPublicAddress,
      refuse: blockedTarget,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    }),
  } as BuildConnector.BuildOptions);
  return (connectOptions, callback) => {
    const ip = literalIp(connectOptions.hostname);
    if (ip !== undefined && !isPublicAddress(ip)) {
      callback(blockedTarget(connectOptions.hostname, ip), null);
      return;
    }
    base(connectOptions, callback);
  };
}
