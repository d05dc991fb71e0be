/** Data-source paths (ADR 0016): parsing, the stored form, the claim key and containment. */
import { describe, expect, it } from 'vitest';
import {
  claimKeyOf,
  formatS3Path,
  isInside,
  parseLocation,
  parseS3Path,
  type S3Path,
} from '../../../shared/data-sources/prefix';

const path = (text: string): S3Path => {
  const parsed = parseS3Path(text);
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed;
};
const problemOf = (text: string) => {
  const parsed = parseS3Path(text);
  return 'problem' in parsed ? parsed.problem : undefined;
};

describe('parseS3Path', () => {
  it('splits bucket and key', () => {
    expect(parseS3Path('s3://bucket/data/sales/')).toEqual({ bucket: 'bucket', key: 'data/sales/' });
    expect(parseS3Path('s3://bucket')).toEqual({ bucket: 'bucket', key: '' });
    expect(parseS3Path('s3://bucket/')).toEqual({ bucket: 'bucket', key: '' });
    expect(parseS3Path('s3://my.bucket-1/a b/c.csv')).toEqual({ bucket: 'my.bucket-1', key: 'a b/c.csv' });
  });

  it('refuses what is not an s3:// path, with the reason', () => {
    expect(problemOf('https://bucket/x')).toMatch(/must be an s3:\/\/ path/);
    expect(problemOf('bucket/x')).toMatch(/must be an s3:\/\/ path/);
    expect(problemOf('s3://')).toMatch(/3 to 63 characters/);
    expect(problemOf('s3://ab/x')).toMatch(/3 to 63 characters/);
    expect(problemOf('s3://Bucket/x')).toMatch(/lower-case/);
    expect(problemOf('s3://-bucket/x')).toMatch(/start and end/);
    expect(problemOf('s3://my..bucket/x')).toMatch(/two dots/);
    expect(problemOf('s3://192.168.1.1/x')).toMatch(/IP address/);
    expect(problemOf('s3://bucket//x')).toMatch(/empty segment/);
    expect(problemOf('s3://bucket/a//b/')).toMatch(/empty segment/);
    expect(problemOf('s3://bucket/a/../b')).toMatch(/\.\. segment/);
    expect(problemOf('s3://bucket/./b')).toMatch(/\. or \.\. segment/);
    expect(problemOf('s3://bucket/data*')).toMatch(/wildcards/);
    expect(problemOf('s3://bucket/a\nb')).toMatch(/control characters/);
    expect(problemOf(`s3://bucket/${'k'.repeat(1025)}`)).toMatch(/1024 bytes/);
  });
});

describe('stored form and claim key', () => {
  it('a bucket gets its slash; the claim ignores trailing slashes', () => {
    expect(formatS3Path(path('s3://bucket'))).toBe('s3://bucket/');
    expect(formatS3Path(path('s3://bucket/data/sales'))).toBe('s3://bucket/data/sales');
    expect(claimKeyOf(path('s3://bucket/data/sales/'))).toBe(claimKeyOf(path('s3://bucket/data/sales')));
    expect(claimKeyOf(path('s3://bucket'))).toBe(claimKeyOf(path('s3://bucket/')));
    expect(claimKeyOf(path('s3://bucket/data/Sales/'))).not.toBe(claimKeyOf(path('s3://bucket/data/sales/')));
  });
});

describe('isInside', () => {
  const inside = (p: string, location: string) => isInside(path(p), parseLocation(location));

  it('holds the location itself and what lies under it at a segment boundary', () => {
    expect(inside('s3://b1b/data/sales/', 's3://b1b/data')).toBe(true);
    expect(inside('s3://b1b/data', 's3://b1b/data')).toBe(true);
    expect(inside('s3://b1b/data/x.csv', 's3://b1b/data/')).toBe(true);
    expect(inside('s3://b1b/database/', 's3://b1b/data')).toBe(false);
    expect(inside('s3://b1b/database/', 's3://b1b/data/')).toBe(false);
    expect(inside('s3://b1b/other/', 's3://b1b/data')).toBe(false);
  });

  it('a bucket location holds the whole bucket and no other', () => {
    expect(inside('s3://b1b/', 's3://b1b')).toBe(true);
    expect(inside('s3://b1b/any/thing', 's3://b1b/')).toBe(true);
    expect(inside('s3://b1b2/x', 's3://b1b')).toBe(false);
  });

  it('s3:// holds every bucket; a trailing * is a plain string prefix', () => {
    expect(inside('s3://anything/x', 's3://')).toBe(true);
    expect(inside('s3://b1b/database/', 's3://b1b/data*')).toBe(true);
    expect(inside('s3://b1b/other/', 's3://b1b/data*')).toBe(false);
  });

  it('a location that is not an s3:// path holds nothing', () => {
    expect(parseLocation('arn:aws:s3:::bucket').kind).toBe('invalid');
    expect(inside('s3://b1b/x', 'somewhere')).toBe(false);
  });
});
