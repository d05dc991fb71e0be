/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/) for outgoing webhook requests, joined
 * to the AWS X-Ray trace the request belongs to. An X-Ray trace id `1-5759e988-bd862e3fe1be46a994272793`
 * is the W3C trace id `5759e988bd862e3fe1be46a994272793` (X-Ray accepts both), so a receiver
 * that continues the `traceparent` it got lands in the same trace as the notification.
 */
import { randomBytes } from 'node:crypto';

export interface TraceContext {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits of the parent span, not all zero. */
  parentId: string;
  sampled: boolean;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const XRAY_ROOT = /(?:^|;)\s*Root=1-([0-9a-f]{8})-([0-9a-f]{24})(?:;|$)/i;
const XRAY_PARENT = /(?:^|;)\s*Parent=([0-9a-f]{16})(?:;|$)/i;
const XRAY_SAMPLED = /(?:^|;)\s*Sampled=([01])(?:;|$)/i;

const nonZero = (hex: string) => /[1-9a-f]/.test(hex);

export function parseTraceparent(value: string | undefined): TraceContext | undefined {
  const match = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  if (!match?.[1] || !match[2] || !match[3] || !nonZero(match[1]) || !nonZero(match[2])) return undefined;
  return { traceId: match[1], parentId: match[2], sampled: (Number.parseInt(match[3], 16) & 1) === 1 };
}

/** The context of an X-Ray trace header (`Root=1-…;Parent=…;Sampled=1`), as an SQS `AWSTraceHeader` carries it. */
function parseXRayHeader(value: string | undefined): TraceContext | undefined {
  const root = value ? XRAY_ROOT.exec(value) : null;
  if (!value || !root?.[1] || !root[2]) return undefined;
  const traceId = `${root[1]}${root[2]}`.toLowerCase();
  if (!nonZero(traceId)) return undefined;
  const parent = XRAY_PARENT.exec(value)?.[1]?.toLowerCase();
  return {
    traceId,
    parentId: parent && nonZero(parent) ? parent : newSpanId(),
    sampled: XRAY_SAMPLED.exec(value)?.[1] === '1',
  };
}

function newSpanId(): string {
  let id = randomBytes(8).toString('hex');
  while (!nonZero(id)) id = randomBytes(8).toString('hex');
  return id;
}

/** A new trace (no upstream context): sampled, so a receiver records it. */
export function newTrace(): TraceContext {
  let traceId = randomBytes(16).toString('hex');
  while (!nonZero(traceId)) traceId = randomBytes(16).toString('hex');
  return { traceId, parentId: newSpanId(), sampled: true };
}

/** The first candidate that parses, in the order given: each a `traceparent` or an X-Ray header. */
export function firstTrace(
  ...candidates: readonly { traceparent?: string | undefined; xray?: string | undefined }[]
): TraceContext | undefined {
  for (const candidate of candidates) {
    const context = parseTraceparent(candidate.traceparent) ?? parseXRayHeader(candidate.xray);
    if (context) return context;
  }
  return undefined;
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.parentId}-${context.sampled ? '01' : '00'}`;
}

/** A child span of `context`: same trace, a new span id (the outgoing request's own span). */
export function childOf(context: TraceContext): TraceContext {
  return { ...context, parentId: newSpanId() };
}
