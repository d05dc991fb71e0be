/**
 * `sandbox` commands: the local stage's simulated platforms, as an operator uses them.
 *
 *   sandbox run-script --type T --host H [--file F | -]   run a script (as the script routes render
 *                                                          it) as a privileged administrator
 *   sandbox show --type T --host H                        what exists there, one object per line
 *   sandbox outage --type T --host H on|off               the host becomes unreachable / reachable
 *   sandbox s3 put|rm --account A --region R --path s3://bucket/key
 *                                                         an object of the ObjectStore sandbox (of that
 *                                                         account and region) is put / removed; a path
 *                                                         ending in / or a bucket removes all under it
 *
 * The sandbox lives in files under `STATE_DIR/sandbox`, and the commands run only while a local
 * cloud runs on STATE_DIR (infra/cli/main.ts checks it and points SANDBOX_DIR there), so an
 * operator's script never lands on a sandbox the service does not read; a deployed stage has none.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { INTEGRATION_TYPES, type IntegrationType, isSqlType, type SqlType } from '../../shared/platforms';

export class SandboxUsageError extends Error {}

function target(values: { type?: string; host?: string }): { type: SqlType; host: string } {
  const sqlTypes = INTEGRATION_TYPES.filter(isSqlType);
  const type = values.type;
  if (!type || !isSqlType(type as IntegrationType))
    throw new SandboxUsageError(`--type must be one of ${sqlTypes.join(', ')} (the sandbox's SQL platforms)`);
  const host = values.host?.trim();
  if (!host)
    throw new SandboxUsageError("--host H is required (the integration's host, or its workspace hostname)");
  return { type: type as SqlType, host };
}

/** `sandbox s3 put|rm`: the buckets and objects data-source paths are located in (ADR 0016). */
async function s3Command(argv: string[]): Promise<string[]> {
  const [action, ...rest] = argv;
  if (action !== 'put' && action !== 'rm') throw new SandboxUsageError('sandbox s3 needs put or rm');
  const { values } = parseArgs({
    args: rest,
    options: { account: { type: 'string' }, region: { type: 'string' }, path: { type: 'string' } },
    strict: true,
  });
  const account = values.account?.trim() ?? '';
  const region = values.region?.trim() ?? '';
  if (!/^\d{12}$/.test(account))
    throw new SandboxUsageError('--account must be the 12-digit cloud account id');
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region))
    throw new SandboxUsageError('--region must be a cloud region such as us-east-1');
  const { formatS3Path, parseS3Path } = await import('../../shared/data-sources/prefix');
  const parsed = parseS3Path(values.path ?? '');
  if ('problem' in parsed) throw new SandboxUsageError(`--path ${parsed.problem}`);
  if (action === 'put' && parsed.key.endsWith('/'))
    throw new SandboxUsageError('--path must name an object (s3://bucket/key) or a bucket, not a prefix');
  const path = parsed.key === '' ? formatS3Path(parsed) : (values.path as string);
  const { sandboxObjects } = await import('../../shared/platforms/sandbox/objects');
  const objects = await sandboxObjects();
  if (action === 'put') {
    await objects.put({ account, region }, path);
    return [JSON.stringify({ path })];
  }
  const removed = await objects.remove({ account, region }, path);
  if (removed === 0)
    throw new Error(`nothing at ${path} in the sandbox of account ${account}, region ${region}`);
  return [JSON.stringify({ path, removed })];
}

/** Runs the command; resolves to the lines to print, rejects with the failing statement named. */
export async function sandboxCommand(argv: string[], stdin: () => string): Promise<string[]> {
  const [sub, ...rest] = argv;
  if (sub === 's3') return s3Command(rest);
  const { values, positionals } = parseArgs({
    args: rest,
    options: { type: { type: 'string' }, host: { type: 'string' }, file: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const { describeHost, parseRenderedScript, runOnSandbox } = await import(
    '../../shared/platforms/sandbox/run-script'
  );
  switch (sub) {
    case 'run-script': {
      const { type, host } = target(values);
      const file = values.file ?? positionals[0] ?? '-';
      const text = file === '-' ? stdin() : readFileSync(file, 'utf8');
      const count = await runOnSandbox(type, host, parseRenderedScript(text));
      return [`ran ${count} statement(s) on the sandbox ${type} host ${host}`];
    }
    case 'show': {
      const { type, host } = target(values);
      return describeHost(type, host);
    }
    case 'outage': {
      const { type, host } = target(values);
      const state = positionals[0];
      if (state !== 'on' && state !== 'off') throw new SandboxUsageError('sandbox outage needs on or off');
      const { withState } = await import('../../shared/platforms/sandbox/store');
      await withState(type, host.toLowerCase(), (s) => {
        s.outage = state === 'on';
      });
      return [`the sandbox ${type} host ${host} is ${state === 'on' ? 'unreachable' : 'reachable'}`];
    }
    default:
      throw new SandboxUsageError(`unknown sandbox command "${sub ?? ''}"`);
  }
}
