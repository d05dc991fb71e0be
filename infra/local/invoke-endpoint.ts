/**
 * A local Lambda Invoke endpoint (`POST /2015-03-31/functions/{name}/invocations`) for the
 * cataloged internal functions, so code that calls `@aws-sdk/client-lambda` InvokeCommand
 * runs unchanged against the in-process handlers. Handler errors come back the way Lambda
 * reports them: status 200, `X-Amz-Function-Error: Unhandled`, `{errorType, errorMessage}`.
 */
import { createServer, type Server } from 'node:http';
import { type InternalFunctionDef, internalFunctions } from '../../shared/catalog/functions';
import { invoke } from './lambda';

export function localFunctionName(prefix: string, name: string): string {
  return `${prefix}-${name}`;
}

export class LocalInvokeEndpoint {
  private server: Server | undefined;
  private readonly byName = new Map<string, InternalFunctionDef>();

  constructor(prefix: string) {
    for (const def of internalFunctions as readonly InternalFunctionDef[]) {
      this.byName.set(localFunctionName(prefix, def.name), def);
    }
  }

  async start(): Promise<string> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
      const name = match?.[1] ? decodeURIComponent(match[1]) : '';
      const def = this.byName.get(name) ?? this.byName.get(name.split(':').pop() ?? '');
      if (!def) {
        res.writeHead(404, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'ResourceNotFoundException',
        });
        res.end(JSON.stringify({ Type: 'User', message: `Function not found: ${name}` }));
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const result = await invoke<unknown>(
          { handler: def.handler, name, timeoutSeconds: def.timeoutSeconds, access: def },
          text ? JSON.parse(text) : {},
        );
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
        res.end(JSON.stringify(result ?? null));
      } catch (error) {
        const err = error as Error;
        res.writeHead(200, { 'content-type': 'application/json', 'x-amz-function-error': 'Unhandled' });
        res.end(
          JSON.stringify({ errorType: err?.name ?? 'Error', errorMessage: err?.message ?? String(error) }),
        );
      }
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (!address || typeof address !== 'object') throw new Error('no address');
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
