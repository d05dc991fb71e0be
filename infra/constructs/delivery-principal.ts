/**
 * The stage's webhook delivery principal (ADR 0019): one IAM role with a fixed name
 * (`causeway-<stage>-webhook-delivery`), retained, whose ARN customers write into the trust
 * policy of the role they create for deliveries into their AWS account. The functions that reach
 * customers (catalog access `deliveryPrincipal: 'assume'`) assume it, then the customer's role
 * (role chaining), so a redeploy that replaces a function's role never changes what customers
 * trust.
 *
 * - Trust: exactly those functions' execution roles, by ARN; never the account root, which would
 *   let any principal of the account that may call sts:AssumeRole on it in.
 * - Its one permission: sts:AssumeRole on roles of other accounts. An Allow on every role,
 *   conditioned on `aws:ResourceAccount` not being the stage's account, and an explicit Deny on
 *   the account's own roles: whatever role ARN a caller names as "theirs", the service can never
 *   be made to act as one of its own roles (confused deputy).
 *
 * Retained: a stack deleted and created again finds the role still there (a fixed name cannot be
 * created twice); import it into the new stack (`cdk import`) rather than deleting it, or every
 * customer's trust policy would name a role that no longer exists (docs/infrastructure.md).
 */
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ResourceBinding } from '../../shared/catalog/environment';
import { deliveryPrincipalRoleName } from '../outputs';
import { acknowledge, type CausewayFunction, nagWildcard, type StageContext } from './function';

export interface DeliveryPrincipalProps {
  readonly stage: StageContext;
  /**
   * The functions whose execution roles the principal trusts: those whose catalog access assumes
   * it. Built after them, so their roles exist.
   */
  readonly trusted: readonly CausewayFunction[];
}

export class DeliveryPrincipal extends Construct {
  public readonly role: iam.Role;
  private readonly trusted: ReadonlySet<iam.IRole>;

  constructor(scope: Construct, id: string, props: DeliveryPrincipalProps) {
    super(scope, id);
    if (props.trusted.length === 0)
      throw new Error('no function assumes the webhook delivery principal (catalog access `assume`)');
    this.trusted = new Set(props.trusted.map((fn) => fn.executionRole));
    const stack = Stack.of(this);
    const anyRole = stack.formatArn({
      service: 'iam',
      region: '',
      account: '*',
      resource: 'role',
      resourceName: '*',
    });
    const ownRoles = stack.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: '*' });
    this.role = new iam.Role(this, 'Role', {
      roleName: deliveryPrincipalRoleName(props.stage.name),
      description: `Causeway ${props.stage.name}: the principal customers' AWS roles trust for webhook deliveries into their accounts (ADR 0019)`,
      assumedBy: new iam.CompositePrincipal(
        ...props.trusted.map((fn) => new iam.ArnPrincipal(fn.executionRole.roleArn)),
      ),
      inlinePolicies: {
        AssumeCustomerRoles: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              sid: 'OtherAccountsRoles',
              actions: ['sts:AssumeRole'],
              resources: [anyRole],
              conditions: { StringNotEquals: { 'aws:ResourceAccount': stack.account } },
            }),
            new iam.PolicyStatement({
              sid: 'NeverOwnAccountsRoles',
              effect: iam.Effect.DENY,
              actions: ['sts:AssumeRole'],
              resources: [ownRoles],
            }),
          ],
        }),
      },
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    acknowledge(this.role, nagWildcard(this, anyRole), [
      'sts:AssumeRole on the roles customers create for webhook deliveries into their AWS accounts:',
      'their accounts are not known at deploy time (each customer names a role at run time), so the',
      'resource can only be arn:aws:iam::*:role/*. The condition aws:ResourceAccount !=',
      "the stage's account and an explicit Deny on the account's own roles keep it to other",
      "accounts' roles, and each of those must trust this role with the customer's ExternalId.",
    ]);
  }

  /**
   * The principal's ARN in `fn`'s environment and, for a function that assumes it,
   * `sts:AssumeRole` on this one role, whose trust policy must already name the function's role.
   */
  bind(fn: CausewayFunction, binding: Extract<ResourceBinding, { kind: 'deliveryPrincipal' }>): void {
    fn.addEnvironment(binding.env, this.role.roleArn);
    if (!binding.assume) return;
    if (!this.trusted.has(fn.executionRole))
      throw new Error(
        `${fn.node.path} assumes the webhook delivery principal, whose trust policy does not name its role (build the principal after every function)`,
      );
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [this.role.roleArn] }),
    );
  }
}
