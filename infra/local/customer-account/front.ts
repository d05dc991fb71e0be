/**
 * The front of the sandbox AWS account: one loopback HTTP endpoint that answers the calls a
 * delivery into a customer's account makes, with real SDK clients on both sides.
 *
 * - Every request must carry a valid SigV4 signature (checked again from the secret of its access
 *   key, `./sigv4.ts`) by the service's functions or by a session `./sts.ts` issued.
 * - STS `AssumeRole` (query protocol) is answered here.
 * - SQS (JSON protocol) and SNS (query protocol) calls are checked against the session's role
 *   (its allowed actions, and resources of the sandbox account only), then passed to the
 *   account's own SQS/SNS emulator. That emulator knows one account (000000000000), so ARNs are
 *   rewritten to it on the way in and back to the sandbox account's id on the way out.
 * - EventBridge `PutEvents` (JSON 1.1) is answered here: each bus made by `sandbox aws
 *   create-bus` forwards every event, in EventBridge's envelope, to its queue.
 *
 * Each call is appended to `trail.jsonl` beside the account's registry: the customer's
 * CloudTrail, showing which session (named after the webhook) did what.
 */

import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { IDLE_KEEP_ALIVE_MS } from '../ports';
import { SANDBOX_ACCOUNT, SANDBOX_REGION, type SandboxAccountRegistry, SERVICE_ACCOUNT } from './account';
import { signatureScope, verifySignature } from './sigv4';
import { type AssumeRoleParams, assumeRoleXml, type Caller, LocalSts, queryErrorXml, StsError } from './sts';

const MAX_BODY = 2 * 1024 * 1024;

interface Call {
  service: string;
  action: string;
  caller?: Caller;
  resource?: string;
}

class FrontError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new FrontError('RequestEntityTooLarge', 'request body too large', 413));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** An ARN of the sandbox account as its emulator knows it (the emulator has one account). */
const toEmulator = (arn: string) => arn.replace(`:${SANDBOX_ACCOUNT}:`, `:${SERVICE_ACCOUNT}:`);
/** ARNs in an emulator's answer as the sandbox account's. */
const fromEmulator = (text: string) => text.replaceAll(`:${SERVICE_ACCOUNT}:`, `:${SANDBOX_ACCOUNT}:`);

/** The account a queue URL or an ARN names (undefined when it names none). */
function accountOf(resource: string | undefined): string | undefined {
  if (!resource) return undefined;
  return (
    /^arn:aws:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):/.exec(resource)?.[1] ??
    /^https:\/\/[^/]+\/(\d{12})\//.exec(resource)?.[1]
  );
}

function denied(caller: Caller | undefined, action: string, resource: string): FrontError {
  return new FrontError(
    'AccessDenied',
    `User: ${caller?.arn ?? 'anonymous'} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`,
    403,
  );
}

/** The caller may make `action` on `resource`: a session of a sandbox role allowing it, on the sandbox account. */
function authorize(caller: Caller, action: string, resource: string): void {
  if (
    caller.kind !== 'session' ||
    !caller.session.allowed.has(action) ||
    accountOf(resource) !== SANDBOX_ACCOUNT
  )
    throw denied(caller, action, resource);
}

export interface SandboxAccountFront {
  endpoint: string;
  sts: LocalSts;
  stop(): Promise<void>;
}

export async function startSandboxAccountFront(options: {
  registry: SandboxAccountRegistry;
  /** The account's own SQS/SNS emulator. */
  emulator: string;
  principalArn: string;
}): Promise<SandboxAccountFront> {
  const { registry, emulator } = options;
  const sts = new LocalSts(registry, options.principalArn);
  mkdirSync(registry.dir, { recursive: true });
  const trailFile = join(registry.dir, 'trail.jsonl');
  const trail = (call: Call, errorCode?: string) =>
    appendFileSync(
      trailFile,
      `${JSON.stringify({
        eventTime: new Date().toISOString(),
        eventSource: `${call.service}.amazonaws.com`,
        eventName: call.action,
        userIdentity: call.caller?.arn,
        roleSessionName: call.caller?.kind === 'session' ? call.caller.session.roleSessionName : undefined,
        resource: call.resource,
        ...(errorCode ? { errorCode } : {}),
      })}\n`,
    );

  const forward = async (
    req: IncomingMessage,
    body: string,
  ): Promise<{ status: number; headers: Record<string, string>; text: string }> => {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'x-amz-target', 'x-amzn-query-mode']) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const response = await fetch(`${emulator}${req.url ?? '/'}`, { method: req.method, headers, body });
    const out: Record<string, string> = {};
    for (const name of ['content-type', 'x-amzn-query-error']) {
      const value = response.headers.get(name);
      if (value) out[name] = value;
    }
    return { status: response.status, headers: out, text: await response.text() };
  };

  /** EventBridge PutEvents: each entry to its bus's queue, in EventBridge's envelope. */
  const putEvents = async (caller: Caller, input: { Entries?: Record<string, unknown>[] }, call: Call) => {
    const entries = input.Entries ?? [];
    if (entries.length === 0 || entries.length > 10)
      throw new FrontError('ValidationException', 'Entries must hold 1 to 10 entries', 400);
    const results: Record<string, string>[] = [];
    for (const entry of entries) {
      const busName = String(entry.EventBusName ?? 'default');
      const busArn = busName.startsWith('arn:')
        ? busName
        : `arn:aws:events:${SANDBOX_REGION}:${SANDBOX_ACCOUNT}:event-bus/${busName}`;
      call.resource = busArn;
      authorize(caller, 'events:PutEvents', busArn);
      const bus = registry.bus(busName);
      if (!bus)
        throw new FrontError('ResourceNotFoundException', `Event bus ${busName} does not exist.`, 400);
      const { Source, DetailType, Detail } = entry as {
        Source?: string;
        DetailType?: string;
        Detail?: string;
      };
      if (!Source || !DetailType || !Detail) {
        results.push({
          ErrorCode: 'InvalidArgument',
          ErrorMessage: 'Parameter(s) Source, DetailType, Detail must be specified.',
        });
        continue;
      }
      let detail: unknown;
      try {
        detail = JSON.parse(Detail);
      } catch {
        detail = undefined;
      }
      if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) {
        results.push({ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' });
        continue;
      }
      const id = randomUUID();
      const event = {
        version: '0',
        id,
        'detail-type': DetailType,
        source: Source,
        account: SANDBOX_ACCOUNT,
        time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: SANDBOX_REGION,
        resources: Array.isArray(entry.Resources) ? entry.Resources : [],
        detail,
      };
      const sent = await fetch(emulator, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
        body: JSON.stringify({
          QueueUrl: `https://sqs.${SANDBOX_REGION}.amazonaws.com/${SERVICE_ACCOUNT}/${bus.queue}`,
          MessageBody: JSON.stringify(event),
        }),
      });
      if (!sent.ok)
        results.push({
          ErrorCode: 'InternalFailure',
          ErrorMessage: `the bus's rule target refused the event: ${await sent.text()}`,
        });
      else results.push({ EventId: id });
    }
    return { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const scope = signatureScope(req.headers);
    const service = scope?.service ?? 'unknown';
    const json = service === 'sqs' || service === 'events';
    const call: Call = { service, action: 'unknown' };
    const answer = (status: number, text: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        'content-type': json
          ? service === 'sqs'
            ? 'application/x-amz-json-1.0'
            : 'application/x-amz-json-1.1'
          : 'text/xml',
        ...headers,
      });
      res.end(text);
    };
    const fail = (error: unknown) => {
      const { code, message, status } =
        error instanceof FrontError || error instanceof StsError
          ? error
          : { code: 'InternalFailure', message: (error as Error).message, status: 500 };
      if (call.caller) trail(call, code);
      if (json)
        answer(status, JSON.stringify({ __type: code, message }), { 'x-amzn-query-error': `${code};Sender` });
      else answer(status, queryErrorXml(code, message, status));
    };
    try {
      if (!scope)
        throw new FrontError('MissingAuthenticationToken', 'Request is missing Authentication Token', 403);
      const sessionToken = req.headers['x-amz-security-token'];
      const identity = sts.identify(
        scope.accessKeyId,
        typeof sessionToken === 'string' ? sessionToken : undefined,
      );
      const verdict = await verifySignature(
        { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body },
        {
          accessKeyId: scope.accessKeyId,
          secretAccessKey: identity.secretAccessKey,
          sessionToken: identity.sessionToken,
        },
      );
      if (!verdict.ok) throw new FrontError(verdict.code, verdict.message, 403);
      const caller = identity.caller;
      call.caller = caller;
      const form = () => Object.fromEntries(new URLSearchParams(body)) as Record<string, string>;
      switch (service) {
        case 'sts': {
          const params = form();
          call.action = params.Action ?? 'unknown';
          call.resource = params.RoleArn;
          if (params.Action !== 'AssumeRole')
            throw new FrontError('InvalidAction', `${params.Action} is not served here`, 400);
          const session = sts.assumeRole(caller, params as AssumeRoleParams);
          trail(call);
          return answer(200, assumeRoleXml(session));
        }
        case 'sqs': {
          call.action = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
          const input = JSON.parse(body || '{}') as { QueueUrl?: string };
          call.resource = input.QueueUrl;
          if (call.action !== 'SendMessage')
            throw denied(caller, `sqs:${call.action}`, input.QueueUrl ?? '*');
          authorize(caller, 'sqs:SendMessage', input.QueueUrl ?? '');
          // The emulator finds a queue by the region and name of its URL, whatever the account.
          const out = await forward(req, body);
          trail(call, out.status >= 300 ? 'error' : undefined);
          return answer(out.status, out.text, out.headers);
        }
        case 'sns': {
          const params = form();
          call.action = params.Action ?? 'unknown';
          call.resource = params.TopicArn;
          if (params.Action !== 'Publish')
            throw denied(caller, `SNS:${params.Action}`, params.TopicArn ?? '*');
          authorize(caller, 'sns:Publish', params.TopicArn ?? '');
          const rewritten = new URLSearchParams(body);
          rewritten.set('TopicArn', toEmulator(params.TopicArn ?? ''));
          const out = await forward(req, rewritten.toString());
          trail(call, out.status >= 300 ? 'error' : undefined);
          return answer(out.status, fromEmulator(out.text), out.headers);
        }
        case 'events': {
          call.action = String(req.headers['x-amz-target'] ?? '').replace(/^AWSEvents\./, '');
          if (call.action !== 'PutEvents') throw denied(caller, `events:${call.action}`, '*');
          const result = await putEvents(caller, JSON.parse(body || '{}'), call);
          trail(call);
          return answer(200, JSON.stringify(result));
        }
        default:
          throw new FrontError('UnknownService', `the sandbox account does not serve ${service}`, 400);
      }
    } catch (error) {
      fail(error);
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = IDLE_KEEP_ALIVE_MS;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    sts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
