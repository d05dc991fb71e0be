/**
 * A throwaway PostgreSQL server for tests: initdb on a temporary directory, password (SCRAM)
 * authentication, listening only on 127.0.0.1 at a free port. As root, the server runs as the
 * `postgres` system user (initdb refuses root). Any failure to start throws: the tests that
 * need it fail loudly instead of skipping.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  host: string;
  port: number;
  superuser: string;
  password: string;
  stop(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql missing)');
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (!version) throw new Error('no PostgreSQL version under /usr/lib/postgresql');
  return join(root, version, 'bin');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function uidOf(user: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', user]).toString().trim());
  return { uid, gid };
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'causeway-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  const superuser = 'cw_admin';
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  writeFileSync(pwfile, password);
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    try {
      if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', full, ...args], { stdio: 'pipe' });
      else execFileSync(full, args, { stdio: 'pipe' });
    } catch (error) {
      const e = error as { stderr?: Buffer; stdout?: Buffer };
      throw new Error(`${cmd} failed: ${e.stderr?.toString() ?? ''}${e.stdout?.toString() ?? ''}`);
    }
  };
  if (asRoot) {
    const { uid, gid } = uidOf('postgres');
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(dir, 0o700);
  run('initdb', [
    '-D',
    data,
    '-U',
    superuser,
    `--pwfile=${pwfile}`,
    '-A',
    'scram-sha-256',
    '--no-sync',
    '-E',
    'UTF8',
  ]);
  const port = await freePort();
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-t',
    '30',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  return {
    host: '127.0.0.1',
    port,
    superuser,
    password,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
