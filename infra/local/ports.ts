import { createServer } from 'node:net';

/**
 * How long the local cloud's HTTP servers (the gateway, the sandbox account's front) keep an idle
 * keep-alive connection, as load balancers in front of APIs commonly do: a client closes its idle
 * sockets first (fetch and Node's agent: one second before the server's advertised timeout), so a
 * server rarely closes a socket a client is reusing at that moment. At Node's 5 s, a busy
 * machine's slowed event loop let clients reuse sockets as they closed: requests were reset, and
 * the one try an AWS destination's AssumeRole gets failed with ECONNRESET.
 */
export const IDLE_KEEP_ALIVE_MS = 65_000;

/** Asks the OS for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await probe();
    } catch (error) {
      lastError = error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
  throw new Error(
    `${what} was not ready within ${timeoutMs} ms: ${(lastError as Error)?.message ?? lastError}`,
  );
}
