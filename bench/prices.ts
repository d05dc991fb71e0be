/**
 * The us-east-1 list prices figure 19 (bench/unit-cost.ts, ADR 0023) multiplies measured units
 * by, each written once, with the date it was read and where from. First paid tier only: no
 * free tier, volume tier or Savings Plan. There is no web in the build environment: each was read
 * from the stored copy of the page named (an AWS page where one was stored, otherwise a
 * third-party page quoting the AWS price for us-east-1).
 */

export interface Price {
  /** US dollars per `unit`. */
  usd: number;
  unit: string;
  read: string;
  source: string;
}

const READ = '2026-11-27';

export const PRICES = {
  sqsStandardRequest: {
    usd: 0.4 / 1e6,
    unit: 'request (standard queue; each 64 KB of a request’s payload is one request)',
    read: READ,
    source:
      'https://cloudburn.io/blog/amazon-sqs-pricing (us-east-1, March 2026: $0.40 per million, first 100 billion)',
  },
  lambdaRequest: {
    usd: 0.2 / 1e6,
    unit: 'invocation',
    read: READ,
    source:
      'https://git.mcrn.ar/mariano/lambda_local_runner/src/commit/957e45b8adae23ce50b966346229585b5df18b4d/docs/lambdas-md/lambda-13-cost.md ($0.20 per million, x86 and arm64)',
  },
  lambdaArmGbSecond: {
    usd: 0.0000133334,
    unit: 'GB-second (arm64, first 7.5 billion GB-s a month; billed per 1 ms)',
    read: READ,
    source: 'https://cloudchipr.com/blog/aws-lambda-pricing (US East (N. Virginia), ARM first tier)',
  },
  dynamoOnDemandWrite: {
    usd: 0.625 / 1e6,
    unit: 'write request unit (on-demand)',
    read: READ,
    source:
      'https://airbyte.com/data-engineering-resources/dynamodb-pricing (US East: $0.625 per million WRU; the issue’s 4 WRU ≈ $2.50 per million agrees)',
  },
  dynamoOnDemandRead: {
    usd: 0.125 / 1e6,
    unit: 'read request unit (on-demand)',
    read: READ,
    source:
      'https://airbyte.com/data-engineering-resources/dynamodb-pricing (US East: $0.125 per million RRU)',
  },
  dynamoProvisionedWcuHour: {
    usd: 0.00065,
    unit: 'provisioned WCU-hour',
    read: READ,
    source: 'https://notes.deiveris.lv/AWS/DynamoDB/DynamoDB%20Provisioned%20Throughput ($0.00065 per WCU)',
  },
  dynamoProvisionedRcuHour: {
    usd: 0.00013,
    unit: 'provisioned RCU-hour',
    read: READ,
    source: 'https://notes.deiveris.lv/AWS/DynamoDB/DynamoDB%20Provisioned%20Throughput ($0.00013 per RCU)',
  },
  cloudWatchLogsIngestedGb: {
    usd: 0.5,
    unit: 'GB ingested (Standard class; first tier of Lambda’s tiered log pricing)',
    read: READ,
    source: 'https://www.duckbillgroup.com/?p=9080 ($0.50 per GB for Standard Logs in us-east-1, first tier)',
  },
  xrayTraceRecorded: {
    usd: 5 / 1e6,
    unit: 'trace recorded',
    read: READ,
    source: 'https://aws.amazon.com/de/xray/pricing/ (5 USD per million recorded traces, $0.000005 each)',
  },
  kmsRequest: {
    usd: 0.03 / 10_000,
    unit: 'KMS request (symmetric: Decrypt, GenerateDataKey)',
    read: READ,
    source: 'https://www.wring.co/blog/aws-kms-pricing-guide ($0.03 per 10,000 symmetric requests)',
  },
  dataTransferOutGb: {
    usd: 0.09,
    unit: 'GB out to the internet (first 10 TB a month)',
    read: READ,
    source: 'https://www.egresscost.com/aws ($0.09/GB first 10 TB, standard regions)',
  },
} as const satisfies Record<string, Price>;

/** Provisioned capacity is bought for this share of use (auto scaling's target, issue 42). */
export const PROVISIONED_UTILISATION = 0.7;

/** The X-Ray default sampling rule: a reservoir of 1 trace per second, then 5 % of the rest. */
export const XRAY_DEFAULT_RULE = { reservoirPerSecond: 1, rate: 0.05 } as const;
