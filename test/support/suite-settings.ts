/**
 * Stage settings the suite's local clouds and its test workers share: records a worker writes
 * in-process (seeded history) and the records its cloud writes must be laid out alike, so both
 * read these. `local-cloud-process.ts` starts every test cloud with them, and vitest.config.ts
 * gives them to the workers of the tiers that use a cloud.
 */
export const SHARED_STAGE_SETTINGS: Readonly<Record<string, string>> = {
  // Two history write shards per audience, not the stages' eight (docs/webhooks.md): a history
  // read queries every shard's partition of each outcome, and at eight those queries were 12,700
  // of the integration tier's 74,000 DynamoDB requests (3,400 of 64,700 at two; the suite is
  // CPU-bound, issue 35). Two keep every read merging partitions; history.test.ts checks records
  // written with fewer shards than the reads cover. The bench keeps the stage's eight.
  HISTORY_WRITE_SHARDS: '2',
};
