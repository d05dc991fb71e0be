/**
 * Issue 24, finding 8: DynamoDB Local and the SQS emulator answered on the machine's external
 * address, without authentication (every table listed, a notification injected from
 * elsewhere). Every listener of the local cloud — the two emulators, the Step Functions and
 * Lambda endpoints, the gateway — must listen on loopback only: the socket table shows where
 * each listens, and connecting to each through every non-loopback address of this machine is
 * refused.
 */
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, inject, it } from 'vitest';

const endpoints = inject('endpoints');
const listeners: Record<string, number> = {
  ...Object.fromEntries(
    (['dynamodb', 'sqs', 'stepfunctions', 'lambda', 'gateway'] as const).map((name) => [
      name,
      Number(new URL(endpoints[name]).port),
    ]),
  ),
  // The sandbox AWS account's front and its own SQS/SNS emulator (issue 40).
  sandboxAccount: Number(new URL(endpoints.sandboxAccount.endpoint).port),
  sandboxAccountEmulator: Number(new URL(endpoints.sandboxAccount.emulator).port),
};

/** Local addresses of the sockets listening on `port` (Linux `/proc/net/tcp{,6}`, hex-encoded). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((table) =>
    existsSync(table)
      ? readFileSync(table, 'utf8')
          .split('\n')
          .slice(1)
          .map((line) => line.trim().split(/\s+/))
          .filter((cols) => cols[3] === '0A' && cols[1]?.endsWith(`:${hexPort}`))
          .map((cols) => (cols[1] ?? '').split(':')[0] ?? '')
      : [],
  );
}

/** 127.0.0.1, ::ffff:127.0.0.1 and ::1 as the kernel's socket table writes them. */
const LOOPBACK_HEX = new Set([
  '0100007F',
  '0000000000000000FFFF00000100007F',
  '00000000000000000000000001000000',
]);

function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    // Guards against a hang only: a refused or accepted connection answers at once.
    socket.setTimeout(10_000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the local cloud listens on loopback only', () => {
  it('every listener is bound to a loopback address (the socket table)', () => {
    expect(existsSync('/proc/net/tcp'), 'the Linux socket table /proc/net/tcp to read').toBe(true);
    for (const [name, port] of Object.entries(listeners)) {
      const addresses = listeningAddresses(port);
      expect(addresses.length, `${name} (port ${port}) listens`).toBeGreaterThan(0);
      expect(
        addresses.filter((a) => !LOOPBACK_HEX.has(a)),
        `${name} (port ${port}) listens on a non-loopback address`,
      ).toEqual([]);
    }
  });

  it("refuses connections through this machine's non-loopback addresses", async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80:'))
      .map((a) => a?.address as string);
    // Stated, not skipped: without such an address this probe has nothing to test.
    expect(external.length, 'os.networkInterfaces() lists a non-loopback address to probe').toBeGreaterThan(
      0,
    );
    for (const [name, port] of Object.entries(listeners)) {
      expect(await probe('127.0.0.1', port), `${name} on loopback (the probe sees an open port)`).toBe(
        'accepted',
      );
      for (const address of external) {
        expect(await probe(address, port), `${name} through ${address}:${port}`).toBe('ECONNREFUSED');
      }
    }
  });
});
