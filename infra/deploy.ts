/**
 * `npm run deploy -- <stage> [extra cdk deploy flags]`: deploys one stage's stack with the
 * locally installed aws-cdk CLI (never the network's `latest`), telemetry, version check and
 * notices off. The stage must exist in cdk.json and be deployable (`deploy: true`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { publishConsole } from './console-publish';
import { stackName } from './stack';
import { loadStages } from './stages';

const repoRoot = join(import.meta.dirname, '..');

function main(): number {
  const [stage, ...extra] = process.argv.slice(2);
  const stages = loadStages();
  const deployable = Object.entries(stages)
    .filter(([, config]) => config.deploy)
    .map(([name]) => name);
  if (!stage || stage.startsWith('-')) {
    console.error(`usage: npm run deploy -- <stage> [cdk deploy flags]   (stages: ${deployable.join(', ')})`);
    return 2;
  }
  if (!(stage in stages)) {
    console.error(`unknown stage "${stage}" (cdk.json defines: ${Object.keys(stages).join(', ')})`);
    return 2;
  }
  if (!deployable.includes(stage)) {
    console.error(
      `stage "${stage}" is local only (deploy: false in cdk.json); deployable: ${deployable.join(', ')}`,
    );
    return 2;
  }
  const cdk = join(repoRoot, 'node_modules', '.bin', 'cdk');
  if (!existsSync(cdk)) {
    console.error('the aws-cdk CLI is not installed (run npm ci)');
    return 2;
  }
  const args = ['deploy', stackName(stage), '--context', `stage=${stage}`, '--no-notices', ...extra];
  console.log(`cdk ${args.join(' ')}`);
  const result = spawnSync(cdk, args, {
    cwd: repoRoot,
    stdio: 'inherit',
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: '1' },
  });
  if (result.error) {
    console.error(`could not run cdk: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

async function deploy(): Promise<number> {
  const status = main();
  if (status !== 0) return status;
  // The console build goes to the stack's bucket once the stack is up (infra/console-publish.ts).
  const stage = process.argv[2] as string;
  const build = spawnSync('npm', ['run', '--silent', 'console:build'], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status !== 0) return build.status ?? 1;
  await publishConsole(stage);
  console.log(`console published to ${stackName(stage)}`);
  return 0;
}

process.exitCode = await deploy();
