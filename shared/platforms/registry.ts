/**
 * Which connector serves a type: the sandbox when PLATFORM_MODE is `sandbox` (the local stage),
 * the real drivers otherwise. Both are loaded with dynamic imports, so a function that never
 * asks for a connector never loads a database driver, and the sandbox never loads one at all.
 */
import { platformMode } from '../config/env';
import type { RemoteType } from '.';
import type { PlatformConnector } from './port';

export async function connectorFor(type: RemoteType): Promise<PlatformConnector> {
  if (platformMode() === 'sandbox') {
    const { sandboxConnector } = await import('./sandbox/connectors');
    return sandboxConnector(type);
  }
  const { realConnector } = await import('./real');
  return realConnector(type);
}
