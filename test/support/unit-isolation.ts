/**
 * The unit tier's files that run each in a fresh module graph of their own: the ones that mock
 * modules (`vi.mock`), spy on or stub shared objects (`vi.spyOn`, `vi.stubEnv`, fake timers) or
 * write `process.env`, since any of these would leak into the next file a shared worker runs.
 * Every other unit file shares its worker's modules with the files before it (`isolate: false`
 * in vitest.config.ts): they are pure domain rules, and re-importing zod, the catalog and the
 * SDK for each of ~60 files cost more CPU than their tests (61 against 27 CPU-seconds for the
 * tier, measured side by side on two cores). `test/unit/architecture/unit-isolation.test.ts`
 * fails when a unit file does one of these things and is not listed here.
 */
export const UNIT_ISOLATED_FILES = [
  'test/unit/integrations/secrets.test.ts',
  'test/unit/local/scoped-environment.test.ts',
  'test/unit/platforms/assurance.test.ts',
  'test/unit/platforms/egress.test.ts',
  'test/unit/platforms/sandbox.test.ts',
  'test/unit/service/queue-consumer.test.ts',
  'test/unit/service/request.test.ts',
  'test/unit/webhooks/aws-credentials.test.ts',
  'test/unit/webhooks/destination-transports.test.ts',
  'test/unit/webhooks/retry-limit.test.ts',
  'test/unit/webhooks/ssrf.test.ts',
  'test/unit/webhooks/telemetry.test.ts',
] as const;

/** What makes a unit file need a module graph of its own (see above). */
export const LEAKS_ACROSS_FILES =
  /vi\.(mock|doMock|spyOn|stubEnv|stubGlobal|useFakeTimers)\b|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env|globalThis\.\w+\s*=[^=]/;
