/** What every operation of a SQL connector works with: its type, its driver and the sandbox's hooks. */
import type { SqlType } from '../..';
import type { ConnectTarget, PlatformDriver } from '../../driver';
import type { SqlPlatform } from '../platform';

export interface SqlConnectorHooks {
  /**
   * Sandbox triggers: how many steps (statements, for teardown) to run before the platform
   * refuses one, and the trigger's name (undefined: no failure).
   */
  failAfter?(
    operation: 'bootstrap' | 'edit' | 'compensate' | 'teardown',
    target: ConnectTarget,
    total: number,
  ): Promise<{ index: number; trigger: string } | undefined>;
}

export interface ConnectorContext {
  readonly type: SqlType;
  readonly driver: PlatformDriver;
  readonly hooks: SqlConnectorHooks;
  /** The type's SQL half (loaded on first use). */
  platform(): Promise<SqlPlatform>;
}

/** `{ [key]: value }`, or nothing when the value is undefined (optional properties stay absent). */
export const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;
