/**
 * The integrations' functions outside the API and the lifecycle workflow: the platform
 * connector (an internal function routes and workflow tasks invoke, so the heavy database
 * drivers load only there) and the reconciler that moves stuck integrations to their error
 * status (scheduled). Both are the function catalog's `capability: 'integrations'` entries.
 */
import { Construct } from 'constructs';
import {
  type CapabilityFunctions,
  type CapabilityFunctionsProps,
  type CatalogSchedule,
  capabilityFunctions,
} from './catalog-functions';
import type { CausewayFunction } from './function';

export type IntegrationFunctionsProps = CapabilityFunctionsProps;

export class IntegrationFunctions extends Construct implements CapabilityFunctions {
  public readonly internalFunctions: ReadonlyMap<string, CausewayFunction>;
  public readonly schedules: ReadonlyMap<string, CatalogSchedule>;

  constructor(scope: Construct, id: string, props: IntegrationFunctionsProps) {
    super(scope, id);
    const built = capabilityFunctions(this, 'integrations', props);
    this.internalFunctions = built.internalFunctions;
    this.schedules = built.schedules;
  }
}
