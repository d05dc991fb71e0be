/**
 * Checks an AWS Signature Version 4 on a request the sandbox account receives, as AWS does: the
 * signature is computed again (with `@smithy/signature-v4`, the SDK's own signer) from the
 * headers the request says it signed, the body and the secret of its access key, and compared.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

export interface SignedRequest {
  method: string;
  /** Path and query as received (`/?Action=…`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface SignatureScope {
  accessKeyId: string;
  region: string;
  service: string;
}

export type Verdict =
  | { ok: true; scope: SignatureScope }
  | {
      ok: false;
      code: 'MissingAuthenticationToken' | 'IncompleteSignature' | 'SignatureDoesNotMatch';
      message: string;
    };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

/** A request's credential scope, read before the secret is known (its access key names the caller). */
export function signatureScope(headers: SignedRequest['headers']): SignatureScope | undefined {
  const match = AUTHORIZATION.exec(String(headers.authorization ?? ''));
  if (!match) return undefined;
  return { accessKeyId: match[1] as string, region: match[3] as string, service: match[4] as string };
}

/** node:crypto in the shape the signer takes (a SHA-256, or an HMAC when given a secret). */
class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

const MAX_SKEW_MS = 15 * 60_000;

function signingDate(amzDate: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) return undefined;
  return new Date(
    Date.UTC(
      +(m[1] as string),
      +(m[2] as string) - 1,
      +(m[3] as string),
      +(m[4] as string),
      +(m[5] as string),
      +(m[6] as string),
    ),
  );
}

/** Whether `request` carries a valid signature by the holder of `secretAccessKey`. */
export async function verifySignature(
  request: SignedRequest,
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string },
  now = Date.now(),
): Promise<Verdict> {
  const authorization = String(request.headers.authorization ?? '');
  if (!authorization)
    return {
      ok: false,
      code: 'MissingAuthenticationToken',
      message: 'Request is missing Authentication Token',
    };
  const match = AUTHORIZATION.exec(authorization);
  if (!match)
    return {
      ok: false,
      code: 'IncompleteSignature',
      message: 'Authorization header is not a SigV4 signature',
    };
  const [, accessKeyId, , region, service, signedList, signature] = match as unknown as string[];
  const date = signingDate(String(request.headers['x-amz-date'] ?? ''));
  if (!date || Math.abs(now - date.getTime()) > MAX_SKEW_MS)
    return { ok: false, code: 'SignatureDoesNotMatch', message: 'Signature expired or x-amz-date missing' };
  const signed = (signedList as string).split(';');
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = request.headers[name];
    if (value === undefined)
      return { ok: false, code: 'SignatureDoesNotMatch', message: `signed header ${name} is missing` };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const url = new URL(request.url, `http://${headers.host ?? 'localhost'}`);
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = query[key];
    query[key] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const signer = new SignatureV4({
    credentials: { ...credentials, accessKeyId: accessKeyId as string },
    region: region as string,
    service: service as string,
    sha256: Sha256,
  });
  const again = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: url.hostname,
      path: decodeURIComponent(url.pathname),
      query,
      headers,
      body: request.body,
    },
    { signingDate: date, signableHeaders: new Set(signed) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(again.headers.authorization ?? ''))?.[1] ?? '';
  const given = Buffer.from(signature as string);
  if (expected.length !== given.length || !timingSafeEqual(Buffer.from(expected), given))
    return {
      ok: false,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  return {
    ok: true,
    scope: { accessKeyId: accessKeyId as string, region: region as string, service: service as string },
  };
}
