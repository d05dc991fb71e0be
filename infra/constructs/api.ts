/**
 * The HTTP API: one function per row of the route table, a Lambda REQUEST authorizer (simple
 * responses, identity source the Authorization header) in front of every non-public route, a
 * `$default` route answering unknown routes with the service's 404/405 shape, stage throttling
 * and JSON access logs.
 *
 * The authorizer authenticates; it does not authorize routes (its answer may be cached per
 * Authorization header for `authorizerCacheSeconds`, across routes). Every handler re-checks
 * the route's `auth` level itself, so a cached answer never opens an admin route to a user.
 */
import { Duration } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { AUTHORIZER_ACCESS, AUTHORIZER_HANDLER, DEFAULT_ROUTE_HANDLER } from '../../shared/catalog/handlers';
import { routeAccess } from '../../shared/catalog/route-access';
import { routeSummary } from '../../shared/catalog/route-summaries';
import { type RouteDef, routeFunctionId, routeKey, routes } from '../../shared/catalog/routes';
import type { HandlerBundles } from './bundles';
import {
  acknowledge,
  CausewayFunction,
  logRetention,
  removalPolicy,
  type StackResources,
  type StageContext,
} from './function';

/** One JSON line per request; never bodies or headers (the Authorization header holds the key). */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  method: '$context.httpMethod',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
});

export interface ApiProps {
  readonly stage: StageContext;
  readonly resources: StackResources;
  /** @default - each function bundles itself */
  readonly bundles?: HandlerBundles;
  /** @default every row of the route table (`shared/catalog/routes.ts`) */
  readonly routes?: readonly RouteDef[];
}

export class Api extends Construct {
  public readonly httpApi: apigw.HttpApi;
  public readonly stage: apigw.HttpStage;
  public readonly authorizerFunction: CausewayFunction;
  public readonly notFoundFunction: CausewayFunction;
  /** Route key (`GET /health`) → its function. */
  public readonly routeFunctions: ReadonlyMap<string, CausewayFunction>;
  public readonly accessLogs: logs.LogGroup;
  /** The invoke URL of the stage. */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const common = { stage: props.stage, resources: props.resources, bundles: props.bundles };

    this.authorizerFunction = new CausewayFunction(this, 'Authorizer', {
      ...common,
      handler: AUTHORIZER_HANDLER,
      description: 'HTTP API request authorizer (API keys)',
      access: AUTHORIZER_ACCESS,
      timeoutSeconds: 5,
    });
    const authorizer = new HttpLambdaAuthorizer('ApiKeyAuthorizer', this.authorizerFunction, {
      responseTypes: [HttpLambdaResponseType.SIMPLE],
      identitySource: ['$request.header.Authorization'],
      resultsCacheTtl: Duration.seconds(props.stage.config.authorizerCacheSeconds),
    });

    this.notFoundFunction = new CausewayFunction(this, 'NotFound', {
      ...common,
      handler: DEFAULT_ROUTE_HANDLER,
      description: 'The $default route: 404/405 in the service error shape',
    });

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: `Causeway ${props.stage.name}`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', this.notFoundFunction),
    });
    const defaultRoute = this.httpApi.node.findChild('DefaultRoute');
    acknowledge(defaultRoute, 'AwsSolutions-APIG4', [
      'The $default route only answers requests that match no route, with a 404/405 error body;',
      'it reads no data, and an authorizer would turn every unknown path into a bare 401.',
    ]);

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logRetention(props.stage),
      removalPolicy: removalPolicy(props.stage),
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      // Route-level 4xx/5xx/latency for the dashboard (AWS/ApiGateway by ApiId, Stage, Method, Resource).
      detailedMetricsEnabled: true,
      throttle: {
        rateLimit: props.stage.config.throttling.rateLimit,
        burstLimit: props.stage.config.throttling.burstLimit,
      },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });
    this.url = this.stage.url;

    const routeFunctions = new Map<string, CausewayFunction>();
    for (const route of props.routes ?? (routes as readonly RouteDef[])) {
      const fnId = routeFunctionId(route);
      const key = routeKey(route);
      if (routeFunctions.has(key)) throw new Error(`route table: ${key} appears twice`);
      const fn = new CausewayFunction(this, fnId, {
        ...common,
        handler: route.handler,
        description: `${key} — ${routeSummary(route)}`.slice(0, 256),
        access: routeAccess(route),
        timeoutSeconds: route.timeoutSeconds ?? 10,
        memoryMb: route.memoryMb ?? 512,
      });
      const [created] = this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
        ...(route.auth === 'public' ? {} : { authorizer }),
      });
      if (route.auth === 'public' && created) {
        acknowledge(created, 'AwsSolutions-APIG4', [
          `${key} is public by design (route table auth: public): it serves`,
          `"${routeSummary(route)}" and must answer without an API key.`,
        ]);
      }
      routeFunctions.set(key, fn);
    }
    this.routeFunctions = routeFunctions;
  }
}
