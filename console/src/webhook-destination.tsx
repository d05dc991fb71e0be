/**
 * Where a webhook delivers (issue 40, ADR 0019; docs/webhooks.md, "Delivery into your AWS
 * account"): an HTTPS URL, or an Amazon SQS queue in the receiver's own AWS account, reached by
 * assuming a role they create. The role's trust (the service's principal, the caller's
 * ExternalId and the trust policy to paste) is read from GET /webhooks/aws-trust and shown beside
 * the destination fields, so the role can be made before the form is sent.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { ErrorBanner } from './errors';
import { Loading } from './loading';
import { CopyButton } from './webhook-signing';

export type Target = 'url' | 'sqs';
type AwsTrust = components['schemas']['AwsTrust'];

/** The URL or the queue a webhook (or a history record) targets, as a table cell shows it. */
export function targetText(webhook: {
  url?: string | undefined;
  destination?: { queueUrl?: string } | undefined;
}): string {
  return webhook.url ?? webhook.destination?.queueUrl ?? '';
}

/** URL or SQS queue, as radio buttons in a labelled group. */
export function TargetChoice({
  id,
  value,
  onChange,
}: {
  id: string;
  value: Target;
  onChange: (t: Target) => void;
}) {
  return (
    <fieldset class="scheme">
      <legend>Deliver to</legend>
      <label class="check">
        <input
          type="radio"
          name={id}
          value="url"
          checked={value === 'url'}
          onChange={() => onChange('url')}
        />{' '}
        an HTTPS URL
      </label>
      <label class="check">
        <input
          type="radio"
          name={id}
          value="sqs"
          checked={value === 'sqs'}
          onChange={() => onChange('sqs')}
        />{' '}
        an Amazon SQS queue in your AWS account
      </label>
    </fieldset>
  );
}

/** What the caller's role must trust, read once from GET /webhooks/aws-trust. */
export function AwsTrustPanel({ id }: { id: string }) {
  const [trust, setTrust] = useState<AwsTrust | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    void api.GET('/webhooks/aws-trust').then(({ data, error: failure, response }) => {
      if (data) setTrust(data);
      else setError(asApiError(failure, response.status));
    });
  }, []);
  if (error) return <ErrorBanner error={error} />;
  if (!trust) return <Loading label="Loading the trust your role needs…" />;
  const policy = JSON.stringify(trust.trustPolicy, null, 2);
  return (
    <section class="aws-trust" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>The role the service assumes</h3>
      <p class="hint">
        Create a role in the queue's account with this trust policy and a permission to{' '}
        <code>sqs:SendMessage</code> on the queue. The service stores no keys: it assumes the role with your
        ExternalId for each delivery.
      </p>
      <dl>
        <dt>Principal</dt>
        <dd>
          <code>{trust.principalArn}</code> <CopyButton text={trust.principalArn} what="the principal ARN" />
        </dd>
        <dt>Your ExternalId</dt>
        <dd>
          <code>{trust.externalId}</code> <CopyButton text={trust.externalId} what="the ExternalId" />
        </dd>
        <dt>Trust policy</dt>
        <dd>
          <pre>{policy}</pre>
          <CopyButton text={policy} what="the trust policy" />
        </dd>
      </dl>
    </section>
  );
}
