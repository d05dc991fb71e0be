/**
 * One local cloud per state directory. `npm start` takes `STATE_DIR/cloud.lock` (holding its
 * PID) before it touches anything in the directory — the DynamoDB Local files, the SQS
 * emulator's files, `endpoints.json` — and removes it when it stops. A second start on the same
 * directory finds the lock, sees that PID alive and refuses; a lock left by a process that no
 * longer exists (a crash, SIGKILL) is stale and taken over, with a line saying so.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class StateDirLockedError extends Error {
  override name = 'StateDirLockedError';
}

export interface StateDirLock {
  readonly path: string;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function lockStateDir(stateDir: string, log: (line: string) => void = () => undefined): StateDirLock {
  const path = join(stateDir, 'cloud.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return {
        path,
        release: () => {
          if (holder(path) === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = holder(path);
    if (pid !== undefined && alive(pid)) {
      throw new StateDirLockedError(
        `another local cloud (pid ${pid}) is already running on STATE_DIR ${stateDir}; stop it first, or set STATE_DIR to another directory`,
      );
    }
    log(
      `taking over a stale lock in ${stateDir} (${pid === undefined ? 'unreadable' : `pid ${pid} is not running`})`,
    );
    rmSync(path, { force: true });
  }
  throw new StateDirLockedError(`could not lock STATE_DIR ${stateDir}: another process keeps taking ${path}`);
}
