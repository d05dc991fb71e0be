/**
 * `npm start` behaves like a service a process manager can run: SIGTERM to the npm process
 * alone stops the whole process group and frees the ports; a second start on the same STATE_DIR
 * refuses; the CLI says where it looked. Real `npm` child processes, own state directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../infra/local/cloud';
import { tempDir } from '../../support/temp';

const repoRoot = join(import.meta.dirname, '..', '..', '..');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function npm(args: string[], env: Record<string, string>): Run {
  let output = '';
  // Its own process group, as under a process manager, so the test can look for leftovers.
  const child = spawn('npm', args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

const started: Run[] = [];
afterAll(() => {
  for (const run of started) {
    if (run.child.pid && groupAlive(run.child.pid)) process.kill(-run.child.pid, 'SIGKILL');
  }
});

describe('npm start as a service', () => {
  it('refuses a second start on the same STATE_DIR and stops everything on SIGTERM to npm alone', async () => {
    const stateDir = tempDir('causeway-npm-start-');
    const env = { STATE_DIR: stateDir, PORT: '0' };
    const first = npm(['start'], env);
    started.push(first);
    const endpointsFile = join(stateDir, 'endpoints.json');
    expect(await until(() => existsSync(endpointsFile), 60_000)).toBe(true);
    const endpoints = JSON.parse(readFileSync(endpointsFile, 'utf8')) as Endpoints;
    const gatewayPort = Number(new URL(endpoints.gateway).port);
    const dynamoPort = Number(new URL(endpoints.dynamodb).port);
    expect(await portOpen(gatewayPort)).toBe(true);
    expect(await portOpen(dynamoPort)).toBe(true);

    const second = npm(['start'], env);
    started.push(second);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(
      `another local cloud (pid ${endpoints.pid}) is already running on STATE_DIR`,
    );
    expect(readFileSync(endpointsFile, 'utf8')).toBe(JSON.stringify(endpoints, null, 2).concat('\n'));
    expect(await portOpen(gatewayPort)).toBe(true);

    const pgid = first.child.pid as number;
    process.kill(pgid, 'SIGTERM'); // the npm process only, as a process manager does
    expect(await until(() => !groupAlive(pgid), 10_000)).toBe(true);
    expect(await portOpen(gatewayPort)).toBe(false);
    expect(await portOpen(dynamoPort)).toBe(false);
    expect(existsSync(endpointsFile)).toBe(false);
    expect(existsSync(join(stateDir, 'cloud.lock'))).toBe(false);
  }, 90_000);
});

describe('npm run cli', () => {
  it('with no command exits non-zero with the usage on stderr', async () => {
    const run = npm(['run', '--silent', 'cli'], {});
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('usage: npm run --silent cli -- <command>');
  }, 30_000);

  it('a command’s --help prints that command’s usage', async () => {
    const run = npm(['run', '--silent', 'cli', '--', 'sandbox', 'run-script', '--help'], {});
    expect(await run.exited).toBe(0);
    expect(run.output().trim()).toMatch(
      /^usage: npm run --silent cli -- sandbox run-script --type T --host H/,
    );
    expect(run.output()).not.toContain('keys create');
  }, 30_000);

  it('sandbox commands refuse, naming STATE_DIR, unless a cloud runs there', async () => {
    const stateDir = tempDir('causeway-no-cloud-');
    const host = `nowhere-${process.pid}.example`;
    for (const args of [
      ['sandbox', 'show', '--type', 'ClusterWarehouse', '--host', host],
      ['sandbox', 'run-script', '--type', 'ClusterWarehouse', '--host', host, '-'],
      ['sandbox', 'aws', 'create-queue', '--name', 'orders'],
    ]) {
      const run = npm(['run', '--silent', 'cli', '--', ...args], { STATE_DIR: stateDir });
      expect(await run.exited, args.join(' ')).toBe(1);
      expect(run.output()).toContain(`no local cloud is running on STATE_DIR ${stateDir}`);
    }
    // Nothing was made up beside the state directory or inside the clone.
    expect(existsSync(join(stateDir, 'sandbox'))).toBe(false);
    const cloneSandbox = join(repoRoot, '.causeway', 'sandbox', 'ClusterWarehouse');
    const made = existsSync(cloneSandbox) ? readdirSync(cloneSandbox).filter((f) => f.startsWith(host)) : [];
    expect(made).toEqual([]);
  }, 30_000);

  it('an endpoints file a killed cloud left behind is no running cloud', async () => {
    const stateDir = tempDir('causeway-stale-cloud-');
    // A pid that cannot be running: above the kernel's pid_max.
    writeFileSync(join(stateDir, 'endpoints.json'), JSON.stringify({ pid: 2 ** 22 + 1 }));
    const run = npm(['run', '--silent', 'cli', '--', 'keys', 'list'], { STATE_DIR: stateDir });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(`names pid ${2 ** 22 + 1}, which is not running`);
  }, 30_000);

  it('without a local cloud names STATE_DIR and where it looked', async () => {
    const stateDir = tempDir('causeway-no-cloud-');
    const run = npm(['run', '--silent', 'cli', '--', 'keys', 'list'], { STATE_DIR: stateDir });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(
      `no local cloud is running on STATE_DIR ${stateDir} (no ${join(stateDir, 'endpoints.json')})`,
    );
  }, 30_000);
});
