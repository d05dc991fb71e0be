/**
 * The two kinds of cataloged function that are neither routes, queue consumers nor workflow
 * tasks (`shared/catalog/functions.ts`), built the same way by whichever construct owns their
 * capability: an internal function callers invoke by name, and a scheduled function with its
 * EventBridge rule.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import {
  type FunctionCapability,
  type InternalFunctionDef,
  internalFunctions,
  type ScheduleDef,
  schedules,
} from '../../shared/catalog/functions';
import type { HandlerBundles } from './bundles';
import { CausewayFunction, type StackResources, type StageContext } from './function';

interface CatalogFunctionContext {
  readonly stage: StageContext;
  readonly resources: StackResources;
  /** @default - each function bundles itself (see `CausewayFunctionProps.bundles`) */
  readonly bundles?: HandlerBundles | undefined;
}

/** The props of a construct that builds one capability's cataloged functions. */
export interface CapabilityFunctionsProps extends CatalogFunctionContext {
  /** @default the function catalog's internal functions of the construct's capability */
  readonly internalFunctions?: readonly InternalFunctionDef[];
  /** @default the function catalog's schedules of the construct's capability */
  readonly schedules?: readonly ScheduleDef[];
}

export interface CapabilityFunctions {
  /** Catalog name → internal function. */
  readonly internalFunctions: ReadonlyMap<string, CausewayFunction>;
  /** Catalog name → scheduled function and its rule. */
  readonly schedules: ReadonlyMap<string, CatalogSchedule>;
}

export interface CatalogSchedule {
  readonly fn: CausewayFunction;
  readonly rule: events.Rule;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

const ofCapability = <T extends { readonly capability: FunctionCapability }>(
  entries: readonly T[],
  capability: FunctionCapability,
): T[] => entries.filter((e) => e.capability === capability);

/** Builds `capability`'s internal and scheduled functions (by default, its catalog entries). */
export function capabilityFunctions(
  scope: Construct,
  capability: FunctionCapability,
  props: CapabilityFunctionsProps,
): CapabilityFunctions {
  const context = { stage: props.stage, resources: props.resources, bundles: props.bundles };
  return {
    internalFunctions: internalFunctionsOf(
      scope,
      props.internalFunctions ?? ofCapability<InternalFunctionDef>(internalFunctions, capability),
      context,
    ),
    schedules: scheduledFunctionsOf(
      scope,
      props.schedules ?? ofCapability<ScheduleDef>(schedules, capability),
      context,
    ),
  };
}

/** One function per entry, registered as an internal function others may invoke. */
function internalFunctionsOf(
  scope: Construct,
  defs: readonly InternalFunctionDef[],
  context: CatalogFunctionContext,
): ReadonlyMap<string, CausewayFunction> {
  const created = new Map<string, CausewayFunction>();
  for (const def of defs) {
    const fn = new CausewayFunction(scope, `${pascal(def.name)}Function`, {
      ...context,
      handler: def.handler,
      description: def.description,
      access: def,
      timeoutSeconds: def.timeoutSeconds,
      memoryMb: def.memoryMb,
      reservedConcurrency: def.reservedConcurrency,
    });
    context.resources.addInternalFunction(def.name, fn);
    created.set(def.name, fn);
  }
  return created;
}

/** One function per entry and an EventBridge `rate(n minutes)` rule (2 retries) targeting it. */
function scheduledFunctionsOf(
  scope: Construct,
  defs: readonly ScheduleDef[],
  context: CatalogFunctionContext,
): ReadonlyMap<string, CatalogSchedule> {
  const created = new Map<string, CatalogSchedule>();
  for (const def of defs) {
    const name = pascal(def.name);
    const fn = new CausewayFunction(scope, `${name}Scheduled`, {
      ...context,
      handler: def.handler,
      description: def.description,
      access: def,
      timeoutSeconds: def.timeoutSeconds,
    });
    const rule = new events.Rule(scope, `${name}Schedule`, {
      description: def.description,
      schedule: events.Schedule.rate(
        Duration.minutes(def.rateStageSetting ? context.stage.config[def.rateStageSetting] : def.rateMinutes),
      ),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: 2 })],
    });
    created.set(def.name, { fn, rule });
  }
  return created;
}
