/**
 * cdk-nag AwsSolutions runs as a validation plugin of the app: synthesizing every deployable
 * stage leaves no unacknowledged finding, and every acknowledgement carries a written reason.
 * Run by stack.test.ts on its synthesis (one synthesis of the app per run: it is the slow part).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp';
import type { SynthesizedApp } from './synth';

/** The cdk-nag tests, on the app `synthesized()` answers (synthesized in the caller's beforeAll). */
export function nagChecks(synthesized: () => SynthesizedApp): void {
  describe('cdk-nag AwsSolutions', () => {
    nagTests(synthesized);
  });
}

function acknowledgements(synth: SynthesizedApp): { path: string; id: string; reason: string }[] {
  const found: { path: string; id: string; reason: string }[] = [];
  for (const construct of synth.app.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: construct.node.path, id, reason });
      }
    }
  }
  return found;
}

function nagTests(synthesized: () => SynthesizedApp): void {
  it('reports no unacknowledged finding (error or warning) for any stage', () => {
    const synth = synthesized();
    const report = synth.nag.validateScope(synth.app);
    const findings = report.violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.severity} ${v.ruleName} at ${r.constructPath}`),
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('leaves a validation report with no violations in the cloud assembly', () => {
    const file = join(synthesized().outdir, 'validation-report.json');
    expect(existsSync(file)).toBe(true);
    const report = JSON.parse(readFileSync(file, 'utf8')) as {
      pluginReports: { violations?: unknown[]; conclusion?: { violations?: unknown[] } }[];
    };
    for (const plugin of report.pluginReports) expect(plugin.violations ?? []).toEqual([]);
  });

  it('gives every acknowledgement a written reason and scopes it below the stack', () => {
    const acks = acknowledgements(synthesized());
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.reason.trim().length, `${ack.id} at ${ack.path}`).toBeGreaterThan(40);
      // Never on the app or a whole stack: on the resource (or its role) the finding is about.
      expect(ack.path.split('/').length, `${ack.id} at ${ack.path}`).toBeGreaterThan(2);
    }
  });

  it('acknowledges wildcard IAM findings one finding at a time, never the whole rule', () => {
    for (const ack of acknowledgements(synthesized())) {
      if (ack.id.includes('IAM5')) expect(ack.id).toMatch(/IAM5\[Resource::.+\]$/);
    }
  });

  it('is a live check: the same plugin fails an unencrypted queue without a DLQ', () => {
    const app = new App({ outdir: tempDir('causeway-nag-') });
    const stack = new Stack(app, 'Probe');
    new sqs.Queue(stack, 'Plain', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    const nag = new AwsSolutionsChecks(app);
    Validations.of(app).addPlugins(nag);
    const rules = nag.validateScope(app).violations.map((v) => v.ruleName);
    expect(rules).toEqual(
      expect.arrayContaining(['AwsSolutions-SQS2', 'AwsSolutions-SQS3', 'AwsSolutions-SQS4']),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS2/);
  });
}
