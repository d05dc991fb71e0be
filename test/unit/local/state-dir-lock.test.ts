import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JAVA_INSTALL_HINT, requireJava } from '../../../infra/local/dynamodb';
import { lockStateDir, StateDirLockedError } from '../../../infra/local/lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'causeway-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('one local cloud per state directory', () => {
  it('takes the lock with its PID and releases it', () => {
    const lock = lockStateDir(dir);
    expect(readFileSync(lock.path, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses while the holder is alive, naming STATE_DIR and the PID', () => {
    const lock = lockStateDir(dir);
    expect(() => lockStateDir(dir)).toThrow(StateDirLockedError);
    expect(() => lockStateDir(dir)).toThrow(
      `another local cloud (pid ${process.pid}) is already running on STATE_DIR ${dir}`,
    );
    lock.release();
  });

  it('takes over a stale lock (its PID is gone) and says so', () => {
    const gone = spawnSync('true').pid;
    writeFileSync(join(dir, 'cloud.lock'), `${gone}\n`);
    const lines: string[] = [];
    const lock = lockStateDir(dir, (line) => lines.push(line));
    expect(lines).toEqual([`taking over a stale lock in ${dir} (pid ${gone} is not running)`]);
    expect(readFileSync(lock.path, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });
});

describe('a missing Java JDK', () => {
  it('is reported with how to install it, for a missing java or a missing javac', () => {
    expect(() => requireJava(['java-that-does-not-exist'])).toThrow(JAVA_INSTALL_HINT);
    expect(() => requireJava(['java', 'javac-that-does-not-exist'])).toThrow(JAVA_INSTALL_HINT);
    expect(JAVA_INSTALL_HINT).toContain('apt-get install -y openjdk-17-jdk-headless');
  });
});
