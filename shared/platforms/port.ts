/**
 * The connector port: everything the integrations capability asks of a remote platform goes
 * through this interface. Two families implement it — the sandbox (local stage: a simulated
 * remote kept in SANDBOX_DIR with documented failure triggers) and the real drivers (deployed
 * stages) — selected by PLATFORM_MODE. Configs passed here are decrypted; connector code must
 * never log them or put them in error messages.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../lazy-schema';
import type { RemotePayload, RemoteType } from '.';

/**
 * What validation tests found, as the API answers it. Built on first use (ADR 0021): only the
 * integration routes' contracts read it, and every function that reaches this port would
 * otherwise build it at init.
 */
export const validationResultsSchema = lazySchema(() =>
  z.object({
    status: z.enum(['passed', 'failed', 'warning']),
    validationTests: z.array(
      z.object({
        name: z.string(),
        status: z.enum(['passed', 'failed', 'warning', 'skipped']),
        message: z.optional(z.string()),
        result: z.optional(z.array(z.unknown())),
      }),
    ),
  }),
);
export type ValidationResults = z.infer<ReturnType<typeof validationResultsSchema>>;
export type ValidationTest = ValidationResults['validationTests'][number];
export type ValidationStatus = ValidationTest['status'];

/** Overall status: failed if any test failed, else warning if any warned, else passed. */
export function summarize(validationTests: ValidationTest[]): ValidationResults {
  const status = validationTests.some((t) => t.status === 'failed')
    ? 'failed'
    : validationTests.some((t) => t.status === 'warning')
      ? 'warning'
      : 'passed';
  return { status, validationTests };
}

/** The lifecycle operations (the workflow's, and what a validation is for). */
export const OperationSchema = z.enum(['create', 'edit', 'delete']);
type Operation = z.infer<typeof OperationSchema>;

/** A validated create/update payload of a type with remote objects (decrypted). */
export type PlatformPayload = RemotePayload;

export interface ValidateRequest {
  operation: Operation;
  payload: PlatformPayload;
  /**
   * For edits: the configuration currently in effect. For the retry of a failed creation: the
   * configuration of the failed attempt (with `leftovers`).
   */
  previous?: PlatformPayload;
  /** The steps a failed creation of this integration left behind (their objects are its own). */
  leftovers?: readonly string[];
  /** For deletes of automatically bootstrapped integrations: the privileged credentials. */
  privilegedCredentials?: Record<string, unknown>;
  integrationId?: number;
}

/**
 * Which steps of this request's remote work already ran, kept by the caller (the workflow task
 * records it on the integration): work that runs again resumes after them, and a failure is
 * undone exactly.
 */
export interface StepProgress {
  /** Steps that already ran for this request (skipped when the work runs again). */
  readonly done: readonly string[];
  /**
   * Called after each step ran, before the next one starts, with the step's key (and the keys of
   * steps it removed with it, recorded in the same write).
   */
  record(...steps: string[]): Promise<void>;
}

export interface BootstrapRequest {
  integrationId: number;
  payload: PlatformPayload;
  progress?: StepProgress;
}

export interface EditRequest {
  integrationId: number;
  previous: PlatformPayload;
  payload: PlatformPayload;
  progress?: StepProgress;
}

/** Undoing what a failed create or edit did: exactly the steps that ran, in reverse order. */
export interface CompensateRequest {
  integrationId: number;
  operation: 'create' | 'edit';
  /** The config being created, or the edit's new config. */
  payload: PlatformPayload;
  /** Edits: the config in effect before the edit. */
  previous?: PlatformPayload;
  /** The steps of the create or edit that ran. */
  applied: readonly string[];
  /** The undo's own progress (steps already undone are skipped). */
  progress: StepProgress;
}

export interface TeardownRequest {
  integrationId: number;
  payload: PlatformPayload;
  privilegedCredentials?: Record<string, unknown>;
}

/** A periodic check of an integration: is everything its setup made still as the plan says? */
export interface AssureRequest {
  integrationId: number;
  payload: PlatformPayload;
}

/** One thing a check found wrong: the object, what was expected, what was found (built on first use). */
export const assuranceFindingSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['missing', 'unplanned']),
    /** The setup step that makes it (missing objects and grants). */
    step: z.optional(z.string()),
    object: z.string(),
    expected: z.string(),
    found: z.string(),
  }),
);
export type AssuranceFinding = z.infer<ReturnType<typeof assuranceFindingSchema>>;

export interface AssuranceResult {
  /** The connection test and the assurance tests, as validation results show them. */
  tests: ValidationTest[];
  findings: AssuranceFinding[];
}

export interface PlatformConnector {
  readonly type: RemoteType;
  /** Runs the type's validation tests; never throws for remote failures (they are failed tests). */
  validate(request: ValidateRequest): Promise<ValidationTest[]>;
  /** Create: automatic → create the service's remote objects; manual → verify the operator's setup. */
  bootstrap(request: BootstrapRequest): Promise<void>;
  /** Apply an edit (only what the change requires). */
  applyEdit(request: EditRequest): Promise<void>;
  /** Remove what create made (automatic), or nothing remote for manual integrations. */
  teardown(request: TeardownRequest): Promise<void>;
  /**
   * Undo the steps a failed bootstrap or edit ran. Absent: the type's remote work is one step
   * that either happened or not, so a failure leaves nothing to undo.
   */
  compensate?(request: CompensateRequest): Promise<void>;
  /**
   * Checks that every object and grant the setup plan made is still in place and lists the
   * grants nobody planned. Never throws for remote failures (a failed connection is a failed
   * test). Absent: the type has no plan; its validation tests are its check.
   */
  assure?(request: AssureRequest): Promise<AssuranceResult>;
  /** Re-runs the steps of the setup plan whose effect is missing (`steps`: their keys). */
  repair?(request: RepairRequest): Promise<void>;
  /**
   * Whether each path (a bucket, a prefix or an object: ADR 0016) exists in the remote, asked
   * with the integration's own connection. Never throws for remote failures: a path that could
   * not be asked carries `error` (safe to show). Present on the types that take data sources.
   */
  locate?(request: LocateRequest): Promise<LocatedPath[]>;
}

export interface LocateRequest {
  integrationId?: number;
  payload: PlatformPayload;
  paths: readonly string[];
}

export type LocatedPath = { path: string; found: boolean } | { path: string; error: string };

export interface RepairRequest {
  integrationId: number;
  payload: PlatformPayload;
  steps: readonly string[];
}

/** A failure worth retrying (network blip, throttling): the workflow's Retry matches this name. */
export class TransientPlatformError extends Error {
  override name = 'TransientPlatformError';
}

/** A permanent failure of a remote operation; the message is safe to store and show. */
export class PlatformOperationError extends Error {
  override name = 'PlatformOperationError';
}
