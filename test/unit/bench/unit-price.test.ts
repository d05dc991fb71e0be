import { describe, expect, it } from 'vitest';
import { costPerMillion, sampledShare, type UnitsPerDelivery } from '../../../bench/lib/unit-price';
import { PRICES } from '../../../bench/prices';

const none: UnitsPerDelivery = {
  sqsRequests: 0,
  lambdaInvocations: 0,
  lambdaGbSeconds: 0,
  dynamoWriteUnits: 0,
  dynamoReadUnits: 0,
  logBytes: 0,
  xrayTraces: 0,
  kmsRequests: 0,
  egressBytes: 0,
};

const row = (units: Partial<UnitsPerDelivery>, component: string) =>
  costPerMillion({ ...none, ...units }).rows.find((r) => r.component === component);

describe('figure 19 price arithmetic', () => {
  it('prices four write units per delivery at the issue’s $2.50 per million on-demand', () => {
    expect(row({ dynamoWriteUnits: 4 }, 'DynamoDB writes')?.onDemand).toBeCloseTo(2.5, 10);
  });

  it('prices provisioned units by the hour at 70 % utilisation', () => {
    // One WCU-second is 1/3600 of a WCU-hour; bought for 70 % use.
    const expected = (PRICES.dynamoProvisionedWcuHour.usd / 3600 / 0.7) * 1e6;
    expect(row({ dynamoWriteUnits: 1 }, 'DynamoDB writes')?.provisioned).toBeCloseTo(expected, 12);
    expect(row({ dynamoReadUnits: 1 }, 'DynamoDB reads')?.provisioned).toBeCloseTo(
      (PRICES.dynamoProvisionedRcuHour.usd / 3600 / 0.7) * 1e6,
      12,
    );
  });

  it('prices everything but DynamoDB the same in both modes', () => {
    const table = costPerMillion({ ...none, sqsRequests: 3, lambdaGbSeconds: 0.05, logBytes: 1000 });
    for (const r of table.rows.filter((x) => !x.component.startsWith('DynamoDB')))
      expect(r.provisioned).toBe(r.onDemand);
    expect(row({ sqsRequests: 3 }, 'SQS requests')?.onDemand).toBeCloseTo(1.2, 10);
    expect(row({ lambdaGbSeconds: 0.05 }, 'Lambda duration (arm64)')?.onDemand).toBeCloseTo(0.66667, 5);
    expect(row({ logBytes: 1024 ** 3 / 1e6 }, 'CloudWatch Logs')?.onDemand).toBeCloseTo(0.5, 10);
    expect(row({ kmsRequests: 1 }, 'KMS requests')?.onDemand).toBeCloseTo(3, 10);
  });

  it('sums the totals and names the most expensive component', () => {
    const table = costPerMillion({ ...none, sqsRequests: 1, dynamoWriteUnits: 4 });
    expect(table.totalOnDemand).toBeCloseTo(0.4 + 2.5, 10);
    expect(table.biggest).toBe('DynamoDB writes');
    expect(table.totalProvisioned).toBeLessThan(table.totalOnDemand);
  });

  it('samples the first request each second and 5 % of the rest', () => {
    expect(sampledShare(0)).toBe(0);
    expect(sampledShare(0.5)).toBe(1);
    expect(sampledShare(1)).toBe(1);
    expect(sampledShare(21)).toBeCloseTo((1 + 0.05 * 20) / 21, 12);
    expect(sampledShare(1e9)).toBeCloseTo(0.05, 6);
  });
});
