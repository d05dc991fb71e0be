/**
 * Figure 15 — soak: the hardening tier's load mix (`test/hardening/load-mix.ts`: 45 users and
 * five admin clients creating, deleting and reading webhooks and integrations) against the
 * bench's local cloud for 60 s, then every acknowledged write read back. `npm test` runs the same
 * mix for a fixed number of requests (a correctness run); this is its sustained version.
 */
import { createPrincipalWithKey } from '../shared/auth/keys';
import { runLoad } from '../test/hardening/load-mix';

export interface SoakResult {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  statuses: Record<string, number>;
  serverErrors: number;
  /** The first 5xx answers and lost writes, for the report. */
  samples: string[];
  created: number;
  deleted: number;
  integrations: number;
  written: number;
  lost: number;
  target: { met: boolean };
}

export async function soak(options: {
  gateway: string;
  adminKey: string;
  seconds: number;
}): Promise<SoakResult> {
  const users = await Promise.all(
    Array.from({ length: 45 }, (_, i) => createPrincipalWithKey(`soak-${i}`, [])),
  );
  const outcome = await runLoad({
    base: options.gateway,
    adminKey: options.adminKey,
    userKeys: users.map((u) => u.apiKey),
    seconds: options.seconds,
  });
  const requests = [...outcome.statuses.values()].reduce((a, b) => a + b, 0);
  return {
    seconds: options.seconds,
    requests,
    requestsPerSecond: Math.round(requests / options.seconds),
    statuses: Object.fromEntries([...outcome.statuses].map(([status, n]) => [String(status), n])),
    serverErrors: outcome.serverErrors.length,
    samples: [...outcome.serverErrors, ...outcome.lost].slice(0, 20),
    created: outcome.created,
    deleted: outcome.deleted,
    integrations: outcome.integrations,
    written: outcome.created + outcome.deleted + outcome.integrations,
    lost: outcome.lost.length,
    target: { met: outcome.serverErrors.length === 0 && outcome.lost.length === 0 },
  };
}
