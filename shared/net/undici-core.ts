/**
 * The three parts of undici the webhook transport uses — `Agent`, `buildConnector` and the
 * request API — loaded from their own modules instead of undici's index.
 *
 * Why: undici is CommonJS, so a bundler cannot drop what a function does not use, and its index
 * loads everything it exports: fetch, WebSocket, EventSource, the mock agents, the caches and
 * every interceptor. Bundled, that is 732 KB and about 36 ms of the delivery consumer's cold
 * start on top of its AWS SDK clients; these three modules are 473 KB and about 8 ms (measured
 * side by side, 15 rounds, 2026-11-24: docs/benchmarks.md, figure 5). Every delivery needs
 * them, so they load at init; the rest never loads.
 *
 * undici has no `exports` map, so the module paths are reachable, but they are not its public
 * API: `test/unit/net/undici-core.test.ts` fails if an upgrade moves or changes them (it compares
 * them with what the index exports and sends a request through them). Types come from undici's
 * public declarations (`./undici-modules.d.ts` maps the paths to them).
 */
import type { Dispatcher } from 'undici';
import dispatchRequest from 'undici/lib/api/api-request.js';
import buildConnector from 'undici/lib/core/connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';

export { Agent, buildConnector };

/** undici's `request(url, options)`: one request through `dispatcher`, without its index. */
export function request(
  url: string,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  const target = new URL(url);
  return dispatchRequest.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: target.search ? `${target.pathname}${target.search}` : target.pathname,
  });
}
