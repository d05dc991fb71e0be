import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { type RouteDef, routeKey, routes } from '../../../shared/catalog/routes';
import { apiHandler } from '../../../shared/edge/handler';
import { InvalidInputError, UnprocessableError } from '../../../shared/errors';
import { apiEvent, lambdaContext } from '../../support/events';

const admin = { authenticated: true, userId: 1, name: 'admin', permissions: 'APPLICATION_ADMIN' };
const user = { authenticated: true, userId: 2, name: 'user', permissions: '' };
const userRoute = (routes as readonly RouteDef[]).find((r) => r.auth === 'user');
const adminRoute = (routes as readonly RouteDef[]).find((r) => r.auth === 'admin');

function parse(response: { statusCode?: number; body?: string }) {
  return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : undefined };
}

describe('apiHandler', () => {
  const echo = apiHandler({ body: z.unknown(), responses: {} }, async ({ principal, body }) => ({
    body: { principal, body },
  }));

  it('answers 404 for a route key not in the route table', async () => {
    const res = parse(await echo(apiEvent('GET /nope', { authorizer: admin }), lambdaContext));
    expect(res).toEqual({
      status: 404,
      body: { statusCode: 404, error: 'Not Found', message: 'no route GET /nope' },
    });
  });

  it('answers 401 with the authorizer reason when the key was not recognised', async () => {
    if (!userRoute) throw new Error('the route table has no user route');
    const res = parse(
      await echo(
        apiEvent(routeKey(userRoute), {
          authorizer: { authenticated: false, reason: 'the API key has been revoked' },
        }),
        lambdaContext,
      ),
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'the API key has been revoked',
    });
  });

  it('answers 403 when a cached authorizer answer for a non-admin reaches an admin route', async () => {
    if (!adminRoute) throw new Error('the route table has no admin route');
    const res = parse(await echo(apiEvent(routeKey(adminRoute), { authorizer: user }), lambdaContext));
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Forbidden');
  });

  it('passes the principal and decoded body to the business logic', async () => {
    if (!userRoute) throw new Error('the route table has no user route');
    const res = parse(
      await echo(apiEvent(routeKey(userRoute), { authorizer: admin, body: '{"a":1}' }), lambdaContext),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      principal: { userId: 1, name: 'admin', permissions: ['APPLICATION_ADMIN'] },
      body: { a: 1 },
    });
  });

  it('maps domain errors with details and hides everything else behind a generic 500', async () => {
    if (!userRoute) throw new Error('the route table has no user route');
    const event = apiEvent(routeKey(userRoute), { authorizer: admin });
    const unprocessable = apiHandler({ responses: {} }, async () => {
      throw new UnprocessableError('validation failed', {
        validationResults: { status: 'failed', validationTests: [] },
      });
    });
    expect(parse(await unprocessable(event, lambdaContext))).toEqual({
      status: 422,
      body: {
        statusCode: 422,
        error: 'Unprocessable Entity',
        message: 'validation failed',
        validationResults: { status: 'failed', validationTests: [] },
      },
    });
    const bad = apiHandler({ responses: {} }, async () => {
      throw new InvalidInputError('nope');
    });
    expect(parse(await bad(event, lambdaContext)).status).toBe(400);
    const boom = apiHandler({ responses: {} }, async () => {
      throw new Error('connection string postgres://admin:secret@db failed');
    });
    const res = parse(await boom(event, lambdaContext));
    expect(res).toEqual({
      status: 500,
      body: { statusCode: 500, error: 'Internal Server Error', message: 'internal error' },
    });
  });

  it('validates path, query and body against the contract before the logic runs', async () => {
    if (!userRoute) throw new Error('the route table has no user route');
    let ran = false;
    const typed = apiHandler(
      {
        params: z.object({
          id: z.pipe(z.string().check(z.regex(/^\d+$/, 'must be a number')), z.transform(Number)),
        }),
        query: z.object({ flag: z.optional(z.enum(['true', 'false'])) }),
        body: z.strictObject({ name: z.string() }),
        responses: {},
      },
      async ({ params, query, body }) => {
        ran = true;
        return { body: { id: params.id, flag: query.flag ?? null, name: body.name } };
      },
    );
    const event = (overrides: { id?: string; flag?: string; body?: string }) => ({
      ...apiEvent(routeKey(userRoute), { authorizer: admin, body: overrides.body }),
      pathParameters: { id: overrides.id ?? '7' },
      queryStringParameters: overrides.flag === undefined ? undefined : { flag: overrides.flag },
    });
    expect(parse(await typed(event({ body: '{"name":"a"}' }), lambdaContext))).toEqual({
      status: 200,
      body: { id: 7, flag: null, name: 'a' },
    });
    const badPath = parse(await typed(event({ id: 'x', body: '{"name":"a"}' }), lambdaContext));
    expect(badPath.status).toBe(400);
    expect(badPath.body.message).toContain('path.id: must be a number');
    const badQuery = parse(await typed(event({ flag: 'maybe', body: '{"name":"a"}' }), lambdaContext));
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.message).toContain('query.flag');
    const badBody = parse(await typed(event({ body: '{"name":1,"extra":true}' }), lambdaContext));
    expect(badBody.status).toBe(400);
    expect(badBody.body.message).toContain('name:');
    expect(badBody.body.message).toContain('unknown field(s) extra');
    const noBody = parse(await typed(event({}), lambdaContext));
    expect(noBody).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: 'a request body is required' },
    });
    ran = false;
    await typed(event({ id: 'x' }), lambdaContext);
    expect(ran).toBe(false);
  });

  it('sends 204 with no body when the logic returns nothing', async () => {
    if (!userRoute) throw new Error('the route table has no user route');
    const empty = apiHandler({ responses: {} }, async () => undefined);
    const res = await empty(apiEvent(routeKey(userRoute), { authorizer: admin }), lambdaContext);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBeUndefined();
  });
});

describe('describeError', () => {
  it('removes URL credentials and key-like values from logged messages', async () => {
    const { describeError } = await import('../../../shared/observability/logger');
    const out = describeError(
      new Error('connect postgres://admin:hunter2@db:5432 failed; password=abc token: xyz'),
    );
    expect(out.errorName).toBe('Error');
    expect(out.errorMessage).not.toContain('hunter2');
    expect(out.errorMessage).not.toContain('abc');
    expect(out.errorMessage).not.toContain('xyz');
  });
});
