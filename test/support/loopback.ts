/**
 * Loopback HTTP servers playing remote services in tests (identity providers, OAuth token
 * endpoints, AWS APIs), and an independent AWS Signature V4 check for the AWS fakes. Servers
 * listen on 127.0.0.1 only.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface ReceivedRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the client must time out). */
  hang?: boolean;
}

export interface LoopbackServer {
  origin: string;
  port: number;
  close(): Promise<void>;
}

export async function startLoopback(
  handler: (req: ReceivedRequest) => Promise<Reply> | Reply,
): Promise<LoopbackServer> {
  const hanging = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: ReceivedRequest = {
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', 'http://127.0.0.1'),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    let reply: Reply;
    try {
      reply = await handler(received);
    } catch (error) {
      reply = { status: 500, body: String((error as Error)?.message ?? error) };
    }
    if (reply.hang) {
      hanging.add(res);
      return;
    }
    res.writeHead(reply.status ?? 200, reply.headers ?? {});
    res.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

export interface SigV4Check {
  accessKeyId: string;
  region: string;
  service: string;
}

/**
 * Verifies the request's SigV4 `Authorization` header against `secretFor(accessKeyId)`:
 * recomputes the canonical request, string to sign and signature. Returns the key id, region
 * and service of a valid signature, undefined otherwise.
 */
export function verifySigV4(
  req: ReceivedRequest,
  secretFor: (accessKeyId: string) => string | undefined,
): SigV4Check | undefined {
  const auth = String(req.headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return undefined;
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = '', signature = ''] = m;
  const secret = secretFor(accessKeyId);
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (secret === undefined || !amzDate.startsWith(date)) return undefined;
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return undefined;
  const canonicalHeaders = names
    .map(
      (h) =>
        `${h}:${String(req.headers[h] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const query = [...req.url.searchParams.entries()]
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const payloadHash = String(req.headers['x-amz-content-sha256'] ?? sha256(req.body));
  const canonical = [req.method, req.url.pathname, query, canonicalHeaders, signedHeaders, payloadHash].join(
    '\n',
  );
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex') === signature
    ? { accessKeyId, region, service }
    : undefined;
}

/** An awsQuery XML error body. */
export function queryError(code: string, message: string): string {
  return `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r-1</RequestId></ErrorResponse>`;
}

/** A free loopback port with nothing listening (connections are refused). */
export async function closedPort(): Promise<number> {
  const s = await startLoopback(() => ({}));
  await s.close();
  return s.port;
}
