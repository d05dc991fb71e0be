/**
 * Persistence of the sandbox platform: one JSON file per (type, host) under SANDBOX_DIR.
 * Updates hold a per-host lock file (created exclusively; a lock older than 10 s is treated as
 * left behind by a crashed process) and replace the file atomically (write a temporary file,
 * then rename), so concurrent functions and test workers never see or write a torn state.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { optionalEnv } from '../../config/env';

interface SandboxObject {
  kind: string;
  /** The name as created (case preserved). */
  name: string;
  /** Parent (database or catalog) for schema-level objects. */
  parent?: string;
  owner?: string;
  attrs: Record<string, string | boolean>;
}

export interface SandboxState {
  type: string;
  host: string;
  /** key → object; keys are `kind:parent.name` in the platform's case rules. */
  objects: Record<string, SandboxObject>;
  /** `privilege|object|grantee` entries. */
  grants: string[];
  /** `role|member` entries. */
  members: string[];
  /** Once-only triggers that already fired on this host (`fail-teardown`). */
  fired?: string[];
  /** Set by `sandbox outage on`: every connection fails as unreachable until `off`. */
  outage?: boolean;
}

const LOCK_STALE_MS = 10_000;

function sandboxDir(): string {
  return optionalEnv('SANDBOX_DIR') ?? join(process.cwd(), '.causeway', 'sandbox');
}

function fileOf(type: string, host: string): string {
  const safe = host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 100);
  const digest = createHash('sha256').update(host).digest('hex').slice(0, 12);
  return join(sandboxDir(), type, `${safe}-${digest}.json`);
}

function empty(type: string, host: string): SandboxState {
  return { type, host, objects: {}, grants: [], members: [] };
}

export function readState(type: string, host: string): SandboxState {
  try {
    return JSON.parse(readFileSync(fileOf(type, host), 'utf8')) as SandboxState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return empty(type, host);
    throw error;
  }
}

async function acquire(lockPath: string): Promise<() => void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.close();
      return () => {
        try {
          unlinkSync(lockPath);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > LOCK_STALE_MS) unlinkSync(lockPath);
      } catch {
        // released meanwhile
      }
      if (Date.now() > deadline) throw new Error('the sandbox host is locked');
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
    }
  }
}

/**
 * Runs `fn` on the host's state under the lock and saves what it leaves in the state — also
 * when it throws (a failure half-way leaves its partial changes, as a real platform would).
 */
export async function withState<T>(type: string, host: string, fn: (state: SandboxState) => T): Promise<T> {
  const file = fileOf(type, host);
  mkdirSync(join(sandboxDir(), type), { recursive: true });
  const release = await acquire(`${file}.lock`);
  try {
    const state = readState(type, host);
    try {
      return fn(state);
    } finally {
      const tmp = `${file}.${randomUUID()}.tmp`;
      writeFileSync(tmp, JSON.stringify(state, null, 2));
      renameSync(tmp, file);
    }
  } finally {
    release();
  }
}
