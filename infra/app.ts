/**
 * The CDK app entry (`cdk.json` → `npx tsx infra/app.ts`): one stack per deployable stage from
 * the `causeway:stages` context, or only the stage given with `-c stage=<name>`. The `local`
 * stage is never synthesized. cdk-nag AwsSolutions runs as a validation plugin: any
 * unacknowledged error fails the synth.
 */
import { createCausewayApp } from './stack';

const { app } = createCausewayApp();
app.synth();
