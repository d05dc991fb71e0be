/**
 * `npm run --silent cli -- <command>`: operator commands against the local cloud (default) or
 * a deployed stage (`--stage NAME`).
 *
 *   keys create --name NAME [--admin]   create a principal and print its API key (shown once)
 *   keys list                           list principals and how many active keys each has
 *   keys revoke --user ID               revoke every key of a user (and disable their webhooks)
 *   notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID] [--ordering-key K]
 *   notify --file F   (JSON lines, published in order)
 *                                       publish a notification to the notifications queue
 *   api me | api status --id ID | api history [--page-size N] [--include-global]  [--key KEY]
 *                                       call the HTTP API with the typed client (./api.ts)
 *   history migrate [--delete-source]   move the legacy history table's records into the
 *                                       layout of ADR 0006 (idempotent; see docs/webhooks.md)
 *   integrations check ID               run the periodic check of an integration now
 *   secrets reseal                      seal again, bound to their record, the secrets stored
 *                                       before ADR 0008 (idempotent; see docs/integrations.md)
 *   sandbox run-script --type T --host H [--file F | -]   run a script on the local sandbox
 *   sandbox show --type T --host H                        list what exists on a sandbox host
 *   sandbox outage --type T --host H on|off               make a sandbox host unreachable / reachable
 *   sandbox s3 put|rm --account A --region R --path s3://bucket/key
 *                                       put an object into / remove one from the ObjectStore sandbox
 *   sandbox aws create-queue|create-topic|create-bus|create-role|receive …
 *                                       the sandbox AWS account deliveries go into (./sandbox-aws.ts)
 *   webhooks disable|enable|rotate-secret|test|recover|recover-status --id ID …  [--key KEY]
 *                                       a webhook's operations through the API (./webhooks.ts)
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readEndpoints } from '../local/env';
import { localStateDir, targetEnvironment } from './target';

const USAGE = `usage: npm run --silent cli -- <command> [--stage NAME]
  keys create --name NAME [--admin]
  keys list
  keys revoke --user ID
  notify --type T --text "…" [--metadata JSON] [--recipients 1,2] [--id ID] [--ordering-key K]
  notify --file F                      (JSON lines, one notification each, published in order)
  api me | api status --id ID | api history [--page-size N] [--include-global]   [--key KEY]
  history migrate [--delete-source]
  integrations check ID
  secrets reseal
  sandbox run-script --type T --host H [--file F | -]     (local stage only)
  sandbox show --type T --host H                          (local stage only)
  sandbox outage --type T --host H on|off                 (local stage only)
  sandbox s3 put|rm --account A --region R --path s3://bucket/key   (local stage only)
  sandbox aws create-queue --name Q [--fifo]                        (local stage only)
  sandbox aws create-topic --name T --queue Q                       (local stage only)
  sandbox aws create-bus --name B --queue Q                         (local stage only)
  sandbox aws create-role --name R --external-id X [--deny ACTION]…   (local stage only)
  sandbox aws receive --queue Q [--wait S] [--max N]                (local stage only)
  webhooks disable --id ID [--reason TEXT] | webhooks enable --id ID          [--key KEY]
  webhooks rotate-secret --id ID [--secret S] | webhooks test --id ID [--type NAME]   [--key KEY]
  webhooks recover --id ID --since T [--until T] [--all] [--dry-run]          [--key KEY]
  webhooks recover-status --id ID --job JOB                                   [--key KEY]`;

class UsageError extends Error {}

/** The usage lines of one command (and subcommand, when it has that one), or all of them. */
function usageOf(command: string, sub: string | undefined): string {
  const lines = USAGE.split('\n').slice(1);
  const mine = lines.filter(
    (line) => line.trimStart().startsWith(`${command} `) || line.includes(`| ${command} `),
  );
  const exact =
    sub && !sub.startsWith('-')
      ? mine.filter((line) => new RegExp(`(^|\\| )${command} ${sub}( |$)`).test(line.trim()))
      : [];
  const shown = exact.length > 0 ? exact : mine;
  return shown.length > 0
    ? `usage: npm run --silent cli -- ${shown.map((l) => l.trim()).join('\n       npm run --silent cli -- ')}`
    : USAGE;
}

function print(value: unknown) {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function keys(argv: string[]) {
  const [sub, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      admin: { type: 'boolean', default: false },
      user: { type: 'string' },
    },
    strict: true,
  });
  const auth = await import('../../shared/auth/keys');
  switch (sub) {
    case 'create': {
      const name = values.name?.trim();
      if (!name) throw new UsageError('keys create needs --name NAME');
      const issued = await auth.createPrincipalWithKey(name, values.admin ? ['APPLICATION_ADMIN'] : []);
      print({
        userId: issued.userId,
        name: issued.name,
        apiKey: issued.apiKey,
        permissions: issued.permissions,
      });
      return;
    }
    case 'list':
      print(await auth.listPrincipals());
      return;
    case 'revoke': {
      const userId = Number(values.user);
      if (!Number.isInteger(userId) || userId <= 0)
        throw new UsageError('keys revoke needs --user ID (a positive integer)');
      const { revokeKeys } = await import('../../shared/service/revoke-keys');
      print(await revokeKeys(userId));
      return;
    }
    default:
      throw new UsageError(`unknown keys command "${sub ?? ''}"`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  const stageIndex = args.indexOf('--stage');
  let stage: string | undefined;
  if (stageIndex >= 0) {
    stage = args[stageIndex + 1];
    if (!stage) throw new UsageError('--stage needs a name');
    args.splice(stageIndex, 2);
  }
  const [command, ...rest] = args;
  if (command === '--help' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!command) throw new UsageError('no command given');
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${usageOf(command, rest[0])}\n`);
    return;
  }
  if (command === 'sandbox') {
    if (stage && stage !== 'local') throw new UsageError('the sandbox exists only on the local stage');
    // The sandbox the running cloud reads, never one the CLI would make up beside it.
    const stateDir = resolve(localStateDir());
    const endpoints = readEndpoints(stateDir);
    process.env.SANDBOX_DIR = join(stateDir, 'sandbox');
    if (rest[0] === 'aws') {
      const { SandboxAwsUsageError, sandboxAwsCommand } = await import('./sandbox-aws');
      try {
        const lines = await sandboxAwsCommand(
          rest.slice(1),
          endpoints.sandboxAccount,
          process.env.SANDBOX_DIR,
        );
        if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
        return;
      } catch (error) {
        if (error instanceof SandboxAwsUsageError) throw new UsageError(error.message);
        throw error;
      }
    }
    const { SandboxUsageError, sandboxCommand } = await import('./sandbox');
    try {
      const lines = await sandboxCommand(rest, () => readFileSync(0, 'utf8'));
      if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
      return;
    } catch (error) {
      if (error instanceof SandboxUsageError) throw new UsageError(error.message);
      throw error;
    }
  }
  Object.assign(process.env, await targetEnvironment(stage));
  switch (command) {
    case 'keys':
      return keys(rest);
    case 'notify': {
      const { notifyCommand } = await import('./notify');
      return notifyCommand(rest);
    }
    case 'history': {
      const [sub, ...flags] = rest;
      const { values } = parseArgs({
        args: flags,
        options: { 'delete-source': { type: 'boolean', default: false } },
        strict: true,
      });
      if (sub !== 'migrate') throw new UsageError(`unknown history command "${sub ?? ''}"`);
      const { migrateLegacyHistory } = await import('../../shared/webhooks/store/history-migration');
      return print(await migrateLegacyHistory({ deleteSource: values['delete-source'] === true }));
    }
    case 'integrations': {
      const { IntegrationsUsageError, integrationsCommand } = await import('./integrations');
      try {
        return print(await integrationsCommand(rest));
      } catch (error) {
        if (error instanceof IntegrationsUsageError) throw new UsageError(error.message);
        throw error;
      }
    }
    case 'secrets': {
      const [sub, ...flags] = rest;
      if (sub !== 'reseal' || flags.length > 0)
        throw new UsageError(`unknown secrets command "${rest.join(' ')}"`);
      const { resealSecrets } = await import('../../shared/service/reseal-secrets');
      return print(await resealSecrets());
    }
    case 'api':
    case 'webhooks': {
      const { ApiUsageError, apiCommand } = await import('./api');
      const { webhooksCommand } = await import('./webhooks');
      try {
        return print(await (command === 'api' ? apiCommand(rest) : webhooksCommand(rest)));
      } catch (error) {
        if (error instanceof ApiUsageError) throw new UsageError(error.message);
        throw error;
      }
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main().catch((error: Error) => {
  process.stderr.write(
    `${error instanceof UsageError ? `${error.message}\n${USAGE}` : `error: ${error.message}`}\n`,
  );
  process.exit(error instanceof UsageError ? 2 : 1);
});
