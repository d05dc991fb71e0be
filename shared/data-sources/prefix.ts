/**
 * Data-source paths (ADR 0016): parsing an `s3://bucket[/key…]` path, its normal form, the key its
 * uniqueness claim is held under, and whether it lies inside an integration's location. Pure: no
 * I/O, so the create use case and the unit tests share it.
 */

export interface S3Path {
  bucket: string;
  /** The key or key prefix after the bucket ('' for the bucket itself). */
  key: string;
}

const MAX_KEY_BYTES = 1024;

/** S3 bucket naming rules: 3–63 of a-z 0-9 . -, starting and ending with a letter or digit, not an IP address. */
function bucketProblem(bucket: string): string | undefined {
  if (bucket.length < 3 || bucket.length > 63) return 'the bucket name must have 3 to 63 characters';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(bucket))
    return 'the bucket name may hold only lower-case letters, digits, dots and hyphens, and must start and end with a letter or digit';
  if (bucket.includes('..')) return 'the bucket name may not hold two dots in a row';
  if (/^\d+\.\d+\.\d+\.\d+$/.test(bucket)) return 'the bucket name may not be an IP address';
  return undefined;
}

/** The path, or why it is not one. */
export function parseS3Path(text: string): S3Path | { problem: string } {
  if (!text.startsWith('s3://')) return { problem: 'must be an s3:// path (s3://bucket/prefix/)' };
  const rest = text.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const key = slash === -1 ? '' : rest.slice(slash + 1);
  const problem = bucketProblem(bucket);
  if (problem) return { problem };
  if (Buffer.byteLength(key) > MAX_KEY_BYTES)
    return { problem: `the key may have at most ${MAX_KEY_BYTES} bytes` };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(key)) return { problem: 'the key may not hold control characters' };
  if (key.includes('*')) return { problem: 'wildcards (*) are not allowed: name the prefix itself' };
  const segments = key.split('/');
  // A trailing '/' makes one empty last segment: that is a prefix, not an empty segment.
  if (segments.slice(0, -1).some((s) => s === ''))
    return { problem: 'the path may not hold an empty segment (//)' };
  if (segments.some((s) => s === '.' || s === '..'))
    return { problem: 'the path may not hold a . or .. segment' };
  return { bucket, key };
}

/** The stored form: a bucket alone gets its trailing slash (`s3://b/`); anything else as given. */
export function formatS3Path(path: S3Path): string {
  return `s3://${path.bucket}/${path.key}`;
}

/** What "the same prefix" compares: the path without trailing slashes (`s3://b/x` = `s3://b/x/`). */
export function claimKeyOf(path: S3Path): string {
  return `${path.bucket}/${path.key.replace(/\/+$/, '')}`;
}

/**
 * An integration's location: `s3://` (every bucket), a bucket, or a prefix; a trailing `*` makes
 * it a plain string prefix (as access-grants location scopes are written).
 */
export type Location =
  | { kind: 'everything' }
  | { kind: 'path'; bucket: string; key: string; wildcard: boolean }
  | { kind: 'invalid'; problem: string };

export function parseLocation(text: string): Location {
  const trimmed = text.trim();
  if (trimmed === 's3://' || trimmed === 's3://*') return { kind: 'everything' };
  const wildcard = trimmed.endsWith('*');
  const parsed = parseS3Path(wildcard ? trimmed.slice(0, -1) : trimmed);
  if ('problem' in parsed) return { kind: 'invalid', problem: parsed.problem };
  return { kind: 'path', bucket: parsed.bucket, key: parsed.key, wildcard };
}

/**
 * Whether `path` lies inside the location: the same bucket, and its key starts at a segment
 * boundary of the location's key (`data` holds `data`, `data/x`, not `database/`), or anywhere
 * after the location's key when it ends with `*`.
 */
export function isInside(path: S3Path, location: Location): boolean {
  if (location.kind === 'everything') return true;
  if (location.kind === 'invalid' || path.bucket !== location.bucket) return false;
  if (location.wildcard || location.key === '' || location.key.endsWith('/'))
    return path.key.startsWith(location.key);
  return path.key === location.key || path.key.startsWith(`${location.key}/`);
}
