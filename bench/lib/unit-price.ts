/**
 * Figure 19's arithmetic (ADR 0023): units per delivery × the list prices of `bench/prices.ts`
 * → dollars per million deliveries, per component, with DynamoDB on-demand and provisioned at
 * 70 % utilisation. Pure: no I/O, unit-tested in test/unit/bench/unit-price.test.ts.
 */
import { PRICES, PROVISIONED_UTILISATION, type Price, XRAY_DEFAULT_RULE } from '../prices';

/** What one delivery (its webhook receiving its 200) consumed, averaged over a run. */
export interface UnitsPerDelivery {
  /** Billed SQS requests (each 64 KB of a request's payload one request). */
  sqsRequests: number;
  lambdaInvocations: number;
  /** Billed duration (each invocation rounded up to 1 ms) × configured memory. */
  lambdaGbSeconds: number;
  dynamoWriteUnits: number;
  dynamoReadUnits: number;
  /** Bytes written to CloudWatch Logs (the handlers' lines and Lambda's own). */
  logBytes: number;
  xrayTraces: number;
  kmsRequests: number;
  /** Bytes sent to the receiver (request line, headers, body). */
  egressBytes: number;
}

interface CostRow {
  component: string;
  unitsPerDelivery: number;
  unit: string;
  /** $ per million deliveries with DynamoDB on-demand. */
  onDemand: number;
  /** $ per million deliveries with DynamoDB provisioned at 70 % utilisation. */
  provisioned: number;
}

export interface CostTable {
  rows: CostRow[];
  totalOnDemand: number;
  totalProvisioned: number;
  /** The component costing most on-demand: the biggest lever. */
  biggest: string;
}

const MILLION = 1e6;
const GB = 1024 ** 3;

/** A provisioned unit used one second, at the utilisation it is bought for. */
const provisionedPerUnitSecond = (hourly: number) => hourly / 3600 / PROVISIONED_UTILISATION;

export function costPerMillion(u: UnitsPerDelivery): CostTable {
  const same = (component: string, unitsPerDelivery: number, unit: string, usdPerUnit: number): CostRow => {
    const usd = unitsPerDelivery * usdPerUnit * MILLION;
    return { component, unitsPerDelivery, unit, onDemand: usd, provisioned: usd };
  };
  /** On-demand per request unit; provisioned per unit-hour bought for 70 % use. */
  const dynamo = (
    component: string,
    unitsPerDelivery: number,
    unit: string,
    onDemand: Price,
    hourly: Price,
  ): CostRow => ({
    component,
    unitsPerDelivery,
    unit,
    onDemand: unitsPerDelivery * onDemand.usd * MILLION,
    provisioned: unitsPerDelivery * provisionedPerUnitSecond(hourly.usd) * MILLION,
  });
  const rows: CostRow[] = [
    same('SQS requests', u.sqsRequests, 'requests', PRICES.sqsStandardRequest.usd),
    same('Lambda requests', u.lambdaInvocations, 'invocations', PRICES.lambdaRequest.usd),
    same('Lambda duration (arm64)', u.lambdaGbSeconds, 'GB-s', PRICES.lambdaArmGbSecond.usd),
    dynamo(
      'DynamoDB writes',
      u.dynamoWriteUnits,
      'WRU / WCU-s',
      PRICES.dynamoOnDemandWrite,
      PRICES.dynamoProvisionedWcuHour,
    ),
    dynamo(
      'DynamoDB reads',
      u.dynamoReadUnits,
      'RRU / RCU-s',
      PRICES.dynamoOnDemandRead,
      PRICES.dynamoProvisionedRcuHour,
    ),
    same('CloudWatch Logs', u.logBytes, 'bytes', PRICES.cloudWatchLogsIngestedGb.usd / GB),
    same('X-Ray traces', u.xrayTraces, 'traces', PRICES.xrayTraceRecorded.usd),
    same('KMS requests', u.kmsRequests, 'requests', PRICES.kmsRequest.usd),
    same('Data transfer out', u.egressBytes, 'bytes', PRICES.dataTransferOutGb.usd / GB),
  ];
  const sum = (key: 'onDemand' | 'provisioned') => rows.reduce((s, r) => s + r[key], 0);
  const biggest = [...rows].sort((a, b) => b.onDemand - a.onDemand)[0]?.component ?? 'none';
  return { rows, totalOnDemand: sum('onDemand'), totalProvisioned: sum('provisioned'), biggest };
}

/**
 * Traces one invocation records under the default sampling rule, for a function invoked
 * `perSecond` times a second: the reservoir's first request each second, then 5 % of the rest.
 */
export function sampledShare(perSecond: number): number {
  if (perSecond <= 0) return 0;
  const { reservoirPerSecond, rate } = XRAY_DEFAULT_RULE;
  if (perSecond <= reservoirPerSecond) return 1;
  return (reservoirPerSecond + rate * (perSecond - reservoirPerSecond)) / perSecond;
}
