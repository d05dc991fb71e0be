/**
 * The `$default` route: answers every request no route matches with the service's error
 * shape — 405 (with `Allow`) when the path exists under another method, else 404.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { errorBody, jsonResponse } from '../../shared/edge/response';
import { allowedMethods } from '../../shared/edge/route-match';

export async function handler(event: APIGatewayProxyEventV2) {
  const path = event.rawPath;
  const method = event.requestContext.http.method;
  const allowed = allowedMethods(path);
  if (allowed.length > 0) {
    return jsonResponse(
      405,
      errorBody(405, `${method} is not allowed on ${path}; use ${allowed.join(', ')}`),
      {
        allow: allowed.join(', '),
      },
    );
  }
  return jsonResponse(404, errorBody(404, `no route for ${method} ${path}`));
}
