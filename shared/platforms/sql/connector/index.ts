/**
 * The connector of every SQL platform, shared by the real drivers and the sandbox. It names no
 * type: the type's SQL half (`sqlPlatformOf`) says where to connect, which checks to run and what
 * the setup plan creates; each operation runs that plan's statements through a `PlatformDriver`
 * over the one step runner (`./run.ts`): validation (`./validate.ts`), setup, edit, repair and
 * compensation (`./apply.ts`), the periodic check (`./assure.ts`) and teardown (`./teardown.ts`).
 */
import type { SqlType } from '../..';
import type { PlatformDriver } from '../../driver';
import type { PlatformConnector } from '../../port';
import { sqlPlatformOf } from '../../sql-platforms';
import { applyEdit, bootstrap, compensate, repair } from './apply';
import { assure } from './assure';
import type { ConnectorContext, SqlConnectorHooks } from './context';
import { teardown } from './teardown';
import { validate } from './validate';

export { runScript } from './run';

export function sqlConnector(
  type: SqlType,
  driver: PlatformDriver,
  hooks: SqlConnectorHooks = {},
): PlatformConnector {
  const ctx: ConnectorContext = { type, driver, hooks, platform: () => sqlPlatformOf(type) };
  return {
    type,
    validate: (request) => validate(ctx, request),
    bootstrap: (request) => bootstrap(ctx, request),
    applyEdit: (request) => applyEdit(ctx, request),
    assure: (request) => assure(ctx, request),
    repair: (request) => repair(ctx, request),
    compensate: (request) => compensate(ctx, request),
    teardown: (request) => teardown(ctx, request),
  };
}
