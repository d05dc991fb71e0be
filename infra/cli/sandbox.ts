/**
 * `sandbox` commands: the local stage's simulated platforms, as an operator uses them.
 *
 *   sandbox run-script --type T --host H [--file F | -]   run a script (as the script routes render
 *                                                          it) as a privileged administrator
 *   sandbox show --type T --host H                        what exists there, one object per line
 *   sandbox outage --type T --host H on|off               the host becomes unreachable / reachable
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

/** Runs the command; resolves to the lines to print, rejects with the failing statement named. */
export async function sandboxCommand(argv: string[], stdin: () => string): Promise<string[]> {
  const [sub, ...rest] = argv;
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
