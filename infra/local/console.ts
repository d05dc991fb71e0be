/**
 * The local gateway's static side: the built console (`console/dist`, `npm run console:build`)
 * at /console/, with the same security headers CloudFront adds in AWS (infra/constructs/console.ts).
 * Hash routing means every page is /console/ itself; unknown files are 404s, never index.html.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { errorBody } from '../../shared/edge/response';

const CONSOLE_PATH = '/console/';
const distDir = join(import.meta.dirname, '..', '..', 'console', 'dist');

/** Content types of the console build's files (the deploy uploads with the same ones). */
export const CONSOLE_CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** `style-src 'unsafe-inline'`: the chart library sizes its canvas with style attributes. */
export const CONSOLE_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The console's security headers (the CloudFront response headers policy sets the same). */
const CONSOLE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
};

/** True when the request was the console's (answered here); false to let the API handle it. */
export async function serveConsole(method: string, pathname: string, res: ServerResponse): Promise<boolean> {
  if (pathname === '/console') {
    res.writeHead(301, { location: CONSOLE_PATH });
    res.end();
    return true;
  }
  if (!pathname.startsWith(CONSOLE_PATH)) return false;
  const send = (status: number, body: string | Buffer, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type, ...CONSOLE_SECURITY_HEADERS });
    res.end(method === 'HEAD' ? undefined : body);
  };
  if (method !== 'GET' && method !== 'HEAD') {
    send(405, JSON.stringify(errorBody(405, `the console answers GET only, not ${method}`)));
    return true;
  }
  const relative = pathname.slice(CONSOLE_PATH.length) || 'index.html';
  let decoded: string | undefined;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    decoded = undefined;
  }
  const file = decoded === undefined ? '' : normalize(join(distDir, decoded));
  if (!file.startsWith(distDir + sep)) {
    send(404, JSON.stringify(errorBody(404, 'not found')));
    return true;
  }
  try {
    send(200, await readFile(file), CONSOLE_CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
  } catch {
    if (relative === 'index.html') {
      send(503, JSON.stringify(errorBody(503, 'the console is not built: run npm run console:build')));
    } else send(404, JSON.stringify(errorBody(404, `no console file ${relative}`)));
  }
  return true;
}
