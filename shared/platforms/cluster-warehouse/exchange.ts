/**
 * The pieces every step of a temporary-credential exchange shares (`iam-auth.ts`): the test
 * endpoints, the time budget (each step CONNECT_TIMEOUT_MS, all of them 3×) and `bounded`, which
 * runs one step in the budget and turns any failure into a `ConnectionFailure` naming the step
 * and its host.
 */
import {
  ConnectionFailure,
  classifyNetworkError,
  connectTimeoutMs,
  describeFailure,
  type FailureReason,
  withTimeout,
} from '../driver';

export interface ClusterAuthOptions {
  /**
   * Tests only: one endpoint (a loopback fake) for the Redshift, Redshift Serverless and STS
   * APIs. Production leaves it unset: the SDK's regional endpoints are used.
   */
  awsEndpoint?: string;
  /**
   * Tests only: the origin (`http://127.0.0.1:<port>`) replacing `https://<idpHost>`.
   * Production leaves it unset: the identity provider is always reached over https.
   */
  idpOrigin?: string;
}

export interface Step {
  label: string;
  host: string;
  port: number;
}

/** Time left for the exchange: each step gets CONNECT_TIMEOUT_MS, all of them together 3×. */
export class Budget {
  private readonly end: number;
  constructor(private readonly perStep = connectTimeoutMs()) {
    this.end = Date.now() + 3 * perStep;
  }
  next(): number {
    return Math.max(1, Math.min(this.perStep, this.end - Date.now()));
  }
}

/** A reason for a transport-level error (fetch or SDK), defaulting to `other`. */
function transportReason(error: unknown): FailureReason {
  const e = error as { name?: string; cause?: unknown };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  return classifyNetworkError(e?.cause) ?? classifyNetworkError(error) ?? 'other';
}

/** Runs one step within the budget; unclassified failures are described at the step's host. */
export async function bounded<T>(
  step: Step,
  budget: Budget,
  run: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => ConnectionFailure | undefined = () => undefined,
): Promise<T> {
  const controller = new AbortController();
  try {
    return await withTimeout(run(controller.signal), budget.next());
  } catch (error) {
    controller.abort();
    if (error instanceof ConnectionFailure && error.detail) throw error;
    const specific = error instanceof ConnectionFailure ? undefined : classify(error);
    if (specific) throw specific;
    const reason = error instanceof ConnectionFailure ? error.reason : transportReason(error);
    throw new ConnectionFailure(
      reason,
      step.label,
      `${step.label}: ${describeFailure(reason, step.host, step.port)}`,
    );
  }
}
