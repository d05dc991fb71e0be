/**
 * Representative validated payloads of the SQL types, with every optional feature off and on:
 * each type's own builder, from its examples (`shared/platforms/<type>/examples.ts`), for the
 * tests about one type. Generic tests iterate the registry instead (test/support/platform-examples.ts).
 */

import type { SqlExamples } from '../../../shared/platforms/examples';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { SqlPayload } from '../../../shared/platforms/scripts';
import { examplesOf } from '../../support/platform-examples';

export { PRIVATE_KEY } from '../../../shared/platforms/cloud-warehouse/examples';
export { oAuth as lakehouseOAuth } from '../../../shared/platforms/lakehouse/examples';

/** Parses a payload; config keys set to `undefined` are dropped (so variants can remove defaults). */
export function payload(input: {
  type: string;
  autoBootstrap: boolean;
  config: Record<string, unknown>;
}): SqlPayload {
  const config = Object.fromEntries(Object.entries(input.config).filter(([, v]) => v !== undefined));
  return IntegrationPayloadSchema.parse({ ...input, config }) as SqlPayload;
}

const builder = (type: string): SqlExamples['build'] => (examplesOf(type).sql as SqlExamples).build;

export const cluster = builder('ClusterWarehouse');
export const cloud = builder('CloudWarehouse');
export const analytics = builder('AnalyticsWarehouse');
export const lakehouse = builder('Lakehouse');
