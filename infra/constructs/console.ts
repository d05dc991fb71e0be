/**
 * The operator console per stage: the built single-page app (`console/dist`) in a private S3
 * bucket behind CloudFront (origin access control; no public bucket), and the HTTP API behind
 * the same distribution, so the console calls the API same-origin: no CORS, no second origin
 * to trust, and the API key never leaves the one origin (docs/console.md).
 *
 *   /console*  → S3 (OAC), cached, security headers, `/console/` → `/console/index.html`
 *   everything else → the HTTP API (no caching, every viewer header but Host forwarded, so the
 *                     Authorization header reaches the Lambda authorizer)
 *
 * The build is not a CDK asset: `npm run deploy` uploads it after the stack is up
 * (infra/console-publish.ts), so the stack holds no deployment-only Lambda function.
 */
import { join } from 'node:path';
import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../local/console';
import { acknowledge, removalPolicy, type StageContext } from './function';

export const CONSOLE_DIST = join(import.meta.dirname, '..', '..', 'console', 'dist');

export interface ConsoleHostingProps {
  readonly stage: StageContext;
  readonly httpApi: apigw.HttpApi;
}

export class ConsoleHosting extends Construct {
  public readonly bucket: s3.Bucket;
  public readonly distribution: cloudfront.Distribution;
  /** https://<distribution>/console/ */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.bucket = new s3.Bucket(this, 'Assets', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: removalPolicy(props.stage),
    });
    acknowledge(this.bucket, 'AwsSolutions-S1', [
      'No server access logs on the console bucket: it holds only the public build of the console',
      '(no data, no secrets), is readable only by CloudFront through origin access control, and is',
      'written only by the deployment. Requests reach it through CloudFront, whose metrics cover it.',
    ]);

    const headers = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: `Causeway ${props.stage.name} console security headers`,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const index = new cloudfront.Function(this, 'IndexRewrite', {
      comment: '/console and /console/ serve the app (hash routing: no other rewrites)',
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      code: cloudfront.FunctionCode.fromInline(
        "function handler(event) { var r = event.request; if (r.uri === '/console' || r.uri === '/console/') { r.uri = '/console/index.html'; } return r; }",
      ),
    });

    const api = new origins.HttpOrigin(
      `${props.httpApi.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`,
      {
        protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      },
    );
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Causeway ${props.stage.name}: console and API`,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: api,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      },
      additionalBehaviors: {
        '/console*': {
          origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
          cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
          responseHeadersPolicy: headers,
          functionAssociations: [{ function: index, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
        },
      },
    });
    acknowledge(this.distribution, 'AwsSolutions-CFR1', [
      'No geo restriction: the console and API serve the customer organisation wherever its admins',
      'are; access is controlled by API keys, not by country.',
    ]);
    acknowledge(this.distribution, 'AwsSolutions-CFR2', [
      'No WAF web ACL in this stack: the API behind it is protected by the Lambda authorizer and the',
      'stage throttling; a WAF is an organisation-level choice (Firewall Manager) outside the service.',
    ]);
    acknowledge(this.distribution, 'AwsSolutions-CFR3', [
      'No CloudFront standard logs: the API requests it forwards are logged by the API stage access',
      'log (one JSON line per request), and the console assets are public, static files.',
    ]);
    acknowledge(this.distribution, 'AwsSolutions-CFR4', [
      'The distribution uses the default *.cloudfront.net certificate, for which CloudFront fixes the',
      'viewer security policy; a stage with its own domain sets a certificate and TLSv1.2_2021.',
    ]);

    this.url = `https://${this.distribution.distributionDomainName}/console/`;
  }
}
