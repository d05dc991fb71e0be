/**
 * Buckets and objects of the ObjectStore sandbox (ADR 0016): kept in the account-and-region state
 * as `bucket:<bucket>` and `object:<bucket>/<key>` entries, written by `sandbox s3 put|rm` and read
 * by `locate`. Paths arrive validated (`shared/data-sources/prefix.ts`); here they are only split.
 */
import type { SandboxState } from '../sandbox/store';

export function splitS3Path(path: string): { bucket: string; key: string } {
  const rest = path.replace(/^s3:\/\//, '');
  const slash = rest.indexOf('/');
  return slash === -1
    ? { bucket: rest, key: '' }
    : { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

const bucketKey = (bucket: string) => `bucket:${bucket}`;
const objectKey = (bucket: string, key: string) => `object:${bucket}/${key}`;

/**
 * Whether the path exists among the state's entries: a bucket; a prefix (ends with `/`) with an
 * object under it; an object, or a folder named without its slash.
 */
export function locateIn(state: SandboxState, path: string): boolean {
  const { bucket, key } = splitS3Path(path);
  if (key === '') return bucketKey(bucket) in state.objects;
  const keys = Object.keys(state.objects);
  const under = (prefix: string) => keys.some((k) => k.startsWith(objectKey(bucket, prefix)));
  if (key.endsWith('/')) return under(key);
  return objectKey(bucket, key) in state.objects || under(`${key}/`);
}

/** Puts an object (and its bucket); a path without a key makes the bucket alone. */
export function putObject(state: SandboxState, path: string): void {
  const { bucket, key } = splitS3Path(path);
  state.objects[bucketKey(bucket)] ??= { kind: 'bucket', name: bucket, attrs: {} };
  if (key !== '')
    state.objects[objectKey(bucket, key)] = { kind: 'object', name: `${bucket}/${key}`, attrs: {} };
}

/**
 * Removes the object at the path; a path ending in `/` removes every object under it, and a bucket
 * path the bucket with everything in it. The last object's bucket stays, as in S3. Answers how many
 * entries went.
 */
export function removeObjects(state: SandboxState, path: string): number {
  const { bucket, key } = splitS3Path(path);
  const doomed =
    key === ''
      ? Object.keys(state.objects).filter(
          (k) => k === bucketKey(bucket) || k.startsWith(objectKey(bucket, '')),
        )
      : key.endsWith('/')
        ? Object.keys(state.objects).filter((k) => k.startsWith(objectKey(bucket, key)))
        : [objectKey(bucket, key)].filter((k) => k in state.objects);
  for (const k of doomed) delete state.objects[k];
  return doomed.length;
}
