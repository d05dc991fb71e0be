/**
 * The sandbox's buckets and objects, for `sandbox s3 put|rm` (ADR 0016): served by the type that
 * takes data sources, found in the registry and loaded from its folder (`sandbox.ts` exports
 * `objects`), so no type is named here.
 */
import { typesWhere } from '..';
import { folderOf } from '../module';

export interface SandboxObjects {
  /** Puts an object (and its bucket) at `s3://bucket/key`; a bucket path makes the bucket alone. */
  put(where: { account: string; region: string }, path: string): Promise<void>;
  /** Removes the object, or everything under a prefix or bucket; answers how many entries went. */
  remove(where: { account: string; region: string }, path: string): Promise<number>;
}

export async function sandboxObjects(): Promise<SandboxObjects> {
  for (const type of typesWhere((m) => m.dataSources !== undefined)) {
    const module = (await import(`../${folderOf(type)}/sandbox.ts`)) as { objects?: SandboxObjects };
    if (module.objects) return module.objects;
  }
  throw new Error('no sandbox platform keeps buckets and objects');
}
