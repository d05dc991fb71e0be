/**
 * Publishes the built console (console/dist) to a deployed stage: every file under the bucket's
 * `console/` prefix with its content type and cache policy (index.html revalidated on every
 * load, hashed assets cached for a year), then one CloudFront invalidation of the entry point.
 * `npm run deploy` runs it after `cdk deploy` succeeds; the stack's outputs name the bucket and
 * the distribution.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CONSOLE_DIST } from './constructs/console';
import { CONSOLE_CONTENT_TYPES } from './local/console';
import { CONSOLE_BUCKET_OUTPUT, CONSOLE_DISTRIBUTION_OUTPUT, stackName } from './outputs';

export interface Upload {
  file: string;
  key: string;
  contentType: string;
  cacheControl: string;
}

/** What goes where: one object per file of the build, under `console/`. */
export function uploadPlan(dist: string = CONSOLE_DIST): Upload[] {
  return readdirSync(dist, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      const key = `console/${relative(dist, file).split('\\').join('/')}`;
      const html = extname(file) === '.html';
      return {
        file,
        key,
        contentType: CONSOLE_CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        // Vite names assets by content hash; only the entry point changes in place.
        cacheControl: html ? 'no-cache' : 'public, max-age=31536000, immutable',
      };
    })
    .sort((a, b) => (a.key.endsWith('.html') ? 1 : 0) - (b.key.endsWith('.html') ? 1 : 0));
}

export async function publishConsole(stage: string): Promise<void> {
  const stack = stackName(stage);
  const described = await new CloudFormationClient({}).send(new DescribeStacksCommand({ StackName: stack }));
  const outputs = new Map((described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  const bucket = outputs.get(CONSOLE_BUCKET_OUTPUT);
  const distribution = outputs.get(CONSOLE_DISTRIBUTION_OUTPUT);
  if (!bucket || !distribution) throw new Error(`stack ${stack} has no console outputs; deploy it first`);
  const s3 = new S3Client({});
  // Assets first, the entry point last: a browser never loads an index naming missing files.
  for (const upload of uploadPlan()) {
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: upload.key,
        Body: readFileSync(upload.file),
        ContentType: upload.contentType,
        CacheControl: upload.cacheControl,
      }),
    );
  }
  await new CloudFrontClient({}).send(
    new CreateInvalidationCommand({
      DistributionId: distribution,
      InvalidationBatch: {
        CallerReference: randomUUID(),
        Paths: { Quantity: 2, Items: ['/console/', '/console/index.html'] },
      },
    }),
  );
}
