/** The sandbox's documented triggers as validation results, for connectors that are not SQL. */
import { describeFailure } from '../driver';
import { literalHostAllowed } from '../egress';
import type { ValidationTest } from '../port';
import { failed, passed, TEST } from '../validation-tests';
import { credentialValues, isUnreachable, TRIGGER } from './sql-driver';

export function connectionTest(
  host: string,
  port: number,
  credentials: unknown,
  name = TEST.basicConnection,
): ValidationTest {
  if (!literalHostAllowed(host)) return failed(name, describeFailure('blocked', host, port));
  if (isUnreachable(host)) return failed(name, describeFailure('unreachable', host, port));
  if (credentialValues(credentials).includes(TRIGGER.invalidCredentials))
    return failed(name, describeFailure('authentication', host, port));
  return passed(name);
}

export function failsBootstrap(credentials: unknown): boolean {
  return credentialValues(credentials).includes(TRIGGER.failBootstrap);
}
