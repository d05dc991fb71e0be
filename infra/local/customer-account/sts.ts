/**
 * STS `AssumeRole` for the local stage, with AWS's rules for the two hops a delivery makes:
 *
 * 1. the service's functions (the local credentials every handler holds) assume the stage's
 *    delivery principal — no one else may;
 * 2. a session of that principal assumes a role of the sandbox account, which it may only when
 *    the role trusts the principal and the call carries the role's ExternalId. Roles of the
 *    service's own account (other than the principal) are refused, as the principal's policy
 *    denies them in AWS; so are accounts the sandbox does not hold.
 *
 * Sessions are issued with random keys and kept in memory until they expire; role chaining caps
 * a session at one hour, as AWS does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_ACCOUNT, type SandboxAccountRegistry, SERVICE_ACCOUNT } from './account';

/** Who signed a request to the sandbox account. */
export type Caller = { kind: 'service'; arn: string } | { kind: 'session'; arn: string; session: Session };

export interface Session {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiresAt: number;
  roleArn: string;
  roleSessionName: string;
  /** The assumed-role ARN requests made with it show (`arn:aws:sts::<acct>:assumed-role/R/S`). */
  arn: string;
  account: string;
  /** Actions the role allows (`sqs:SendMessage` …); the principal's session allows `sts:AssumeRole` only. */
  allowed: ReadonlySet<string>;
}

export class StsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** The local credentials the service's handlers use (infra/local/env.ts). */
const SERVICE_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

const ROLE_ARN = /^arn:aws:iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*([\w+=,.@-]{1,64})$/;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;
const CHAINED_MAX_SECONDS = 3600;

export interface AssumeRoleParams {
  RoleArn?: string;
  RoleSessionName?: string;
  ExternalId?: string;
  DurationSeconds?: string;
}

export class LocalSts {
  private readonly sessions = new Map<string, Session>();
  /** AssumeRole calls answered (granted or refused), for tests and the bench. */
  calls = 0;

  constructor(
    private readonly registry: SandboxAccountRegistry,
    /** The stage's delivery principal (the role customers trust). */
    readonly principalArn: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The caller holding `accessKeyId` and the secret its signature must use, or why there is none. */
  identify(
    accessKeyId: string,
    sessionToken: string | undefined,
  ): { caller: Caller; secretAccessKey: string; sessionToken?: string } {
    if (accessKeyId === SERVICE_CREDENTIALS.accessKeyId)
      return {
        caller: { kind: 'service', arn: `arn:aws:iam::${SERVICE_ACCOUNT}:role/causeway-local-functions` },
        secretAccessKey: SERVICE_CREDENTIALS.secretAccessKey,
      };
    const session = this.sessions.get(accessKeyId);
    if (!session || session.sessionToken !== sessionToken)
      throw new StsError(
        'InvalidClientTokenId',
        'The security token included in the request is invalid.',
        403,
      );
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(accessKeyId);
      throw new StsError('ExpiredToken', 'The security token included in the request is expired', 400);
    }
    return {
      caller: { kind: 'session', arn: session.arn, session },
      secretAccessKey: session.secretAccessKey,
      sessionToken: session.sessionToken,
    };
  }

  assumeRole(caller: Caller, params: AssumeRoleParams): Session {
    this.calls++;
    const roleArn = params.RoleArn ?? '';
    const match = ROLE_ARN.exec(roleArn);
    if (!match) throw new StsError('ValidationError', `${roleArn || 'RoleArn'} is not a valid role ARN`);
    const sessionName = params.RoleSessionName ?? '';
    if (!SESSION_NAME.test(sessionName))
      throw new StsError('ValidationError', 'RoleSessionName must be 2 to 64 characters of [\\w+=,.@-]');
    const duration =
      params.DurationSeconds === undefined ? CHAINED_MAX_SECONDS : Number(params.DurationSeconds);
    if (!Number.isInteger(duration) || duration < 900 || duration > 43_200)
      throw new StsError('ValidationError', 'DurationSeconds must be between 900 and 43200');
    if (caller.kind === 'session' && duration > CHAINED_MAX_SECONDS)
      throw new StsError(
        'ValidationError',
        'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.',
      );
    const denied = () =>
      new StsError(
        'AccessDenied',
        `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
        403,
      );
    const [, account, roleName] = match as unknown as [string, string, string];
    let allowed: ReadonlySet<string>;
    if (roleArn === this.principalArn) {
      if (caller.kind !== 'service') throw denied();
      allowed = new Set(['sts:AssumeRole']);
    } else if (account === SANDBOX_ACCOUNT) {
      const role = this.registry.role(roleArn);
      const byPrincipal = caller.kind === 'session' && caller.session.roleArn === this.principalArn;
      if (!role || !byPrincipal || role.trustedPrincipal !== this.principalArn) throw denied();
      if (params.ExternalId === undefined || params.ExternalId !== role.externalId) throw denied();
      allowed = new Set(role.allowed);
    } else throw denied();
    const session: Session = {
      accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      expiresAt: this.now() + duration * 1000,
      roleArn,
      roleSessionName: sessionName,
      arn: `arn:aws:sts::${account}:assumed-role/${roleName}/${sessionName}`,
      account,
      allowed,
    };
    this.sessions.set(session.accessKeyId, session);
    return session;
  }
}

export function assumeRoleXml(session: Session): string {
  return `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <Credentials>
      <AccessKeyId>${session.accessKeyId}</AccessKeyId>
      <SecretAccessKey>${session.secretAccessKey}</SecretAccessKey>
      <SessionToken>${session.sessionToken}</SessionToken>
      <Expiration>${new Date(session.expiresAt).toISOString()}</Expiration>
    </Credentials>
    <AssumedRoleUser>
      <AssumedRoleId>AROA${session.accessKeyId.slice(4)}:${escapeXml(session.roleSessionName)}</AssumedRoleId>
      <Arn>${escapeXml(session.arn)}</Arn>
    </AssumedRoleUser>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata>
</AssumeRoleResponse>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The error body of AWS's query protocol (STS, SNS). */
export function queryErrorXml(code: string, message: string, status: number): string {
  return `<ErrorResponse><Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
}
