/**
 * `npm run synth`: synthesizes every deployable stage offline (no AWS credentials, no network)
 * into `cdk.out`, in-process, with cdk-nag AwsSolutions. Prints a summary per stack and exits
 * non-zero on any unacknowledged cdk-nag finding (error or warning) or any synth error.
 *
 * `npm run synth -- dev` synthesizes only that stage.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { createCausewayApp } from './stack';

const repoRoot = join(import.meta.dirname, '..');

function acknowledgements(root: IConstruct): number {
  let count = 0;
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY && entry.data) {
        count += Object.keys(entry.data as Record<string, string>).length;
      }
    }
  }
  return count;
}

function main(): number {
  const started = Date.now();
  const context = (
    JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
  ).context;
  const outdir = join(repoRoot, 'cdk.out');
  const stage = process.argv[2];
  const { app, stacks, nag } = createCausewayApp({ context, outdir, ...(stage ? { stage } : {}) });

  let synthError: unknown;
  let assembly: ReturnType<typeof app.synth> | undefined;
  try {
    assembly = app.synth();
  } catch (error) {
    synthError = error;
  }
  const report = nag.validateScope(app);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);

  console.log(
    `Causeway synth — ${stacks.length} stack(s) in ${seconds} s → ${relative(process.cwd(), outdir) || '.'}`,
  );
  for (const stack of stacks) {
    const artifact = assembly?.getStackByName(stack.stackName);
    const template = artifact?.template as { Resources?: Record<string, { Type: string }> } | undefined;
    const resources = Object.values(template?.Resources ?? {});
    const functions = resources.filter((r) => r.Type === 'AWS::Lambda::Function').length;
    const alarms = resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').length;
    console.log(
      `  ${stack.stackName.padEnd(18)} ${String(resources.length).padStart(4)} resources, ${functions} functions, ${alarms} alarms` +
        (artifact ? `  ${relative(process.cwd(), artifact.templateFullPath)}` : ''),
    );
    for (const message of artifact?.messages ?? []) {
      if (message.level !== 'info')
        console.log(`    ${message.level}: ${message.id} ${String(message.entry.data)}`);
    }
  }

  const unacknowledged = report.violations.flatMap((v) =>
    v.violatingResources.map(
      (r) =>
        `${(v.severity ?? 'error').toUpperCase()} ${v.ruleName} at ${r.constructPath ?? '?'}: ${v.description}`,
    ),
  );
  console.log(
    `  cdk-nag AwsSolutions: ${unacknowledged.length} unacknowledged finding(s), ${acknowledgements(app)} acknowledgement(s) with reasons`,
  );
  for (const line of unacknowledged) console.log(`    ${line}`);

  if (synthError) {
    console.error(`synth failed: ${synthError instanceof Error ? synthError.message : String(synthError)}`);
    return 1;
  }
  return unacknowledged.length > 0 ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`synth failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
