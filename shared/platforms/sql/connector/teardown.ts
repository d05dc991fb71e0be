/** Removing an automatic setup: its removal script, as the privileged user the DELETE names. */
import type { SqlPayload } from '../..';
import { platformOf } from '../..';
import type { ConnectTarget } from '../../driver';
import type { TeardownRequest } from '../../port';
import { removalScriptOf } from '../../scripts';
import type { SqlPlatform } from '../platform';
import type { ConnectorContext } from './context';
import { runScript } from './run';

const count = (s: { sections: readonly { statements: readonly string[] }[] }) =>
  s.sections.reduce((n, x) => n + x.statements.length, 0);

export /**
 * Where and as whom removal connects: with the privileged DELETE credentials, or as the service
 * itself for a type whose DELETE takes none (its module has no `deletion` rules). Manual
 * integrations: no connection (the operator runs the delete script).
 */
function teardownTarget(
  platform: SqlPlatform,
  payload: SqlPayload,
  privileged: Record<string, unknown> | undefined,
): ConnectTarget | undefined {
  if (!payload.autoBootstrap) return undefined;
  if (!platformOf(payload.type).deletion) return platform.serviceTarget(payload);
  return privileged && platform.privilegedTarget ? platform.privilegedTarget(payload, privileged) : undefined;
}

export async function teardown(ctx: ConnectorContext, request: TeardownRequest): Promise<void> {
  const platform = await ctx.platform();
  const payload = request.payload as SqlPayload;
  // Manual integrations are removed by the operator's delete script.
  const target = teardownTarget(platform, payload, request.privilegedCredentials);
  if (!target) return;
  const script = removalScriptOf(platform, payload);
  await runScript(ctx.driver, target, script, {
    tolerateMissing: true,
    stopAfter: (await ctx.hooks.failAfter?.('teardown', target, count(script)))?.index,
  });
}
