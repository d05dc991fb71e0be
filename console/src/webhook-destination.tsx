/**
 * Where a webhook delivers (issue 40, ADR 0019; docs/webhooks.md, "Delivery into your AWS
 * account"): an HTTPS URL, or an Amazon SQS queue, SNS topic or EventBridge event bus in the
 * receiver's own AWS account, reached by assuming a role they create. The create and edit forms
 * share the choice, the fields of each kind (`DestinationFields`, one draft for all of them) and
 * the role's trust (the service's principal, the caller's ExternalId and the trust policy to
 * paste, read from GET /webhooks/aws-trust), shown beside the fields so the role can be made
 * before the form is sent, with the one permission the chosen kind needs.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { ErrorBanner } from './errors';
import { Loading } from './loading';
import { CopyButton } from './webhook-signing';

type Destination = components['schemas']['WebhookDestination'];
type AwsTrust = components['schemas']['AwsTrust'];
export type Target = 'url' | Destination['type'];

/** What each kind of destination is called, and the action its role must allow. */
const KINDS: Record<Destination['type'], { choice: string; action: string; resource: string }> = {
  sqs: { choice: 'an Amazon SQS queue in your AWS account', action: 'sqs:SendMessage', resource: 'queue' },
  sns: { choice: 'an Amazon SNS topic in your AWS account', action: 'sns:Publish', resource: 'topic' },
  eventbridge: {
    choice: 'an Amazon EventBridge event bus in your AWS account',
    action: 'events:PutEvents',
    resource: 'event bus',
  },
};

/** The destination fields as typed, one draft for every kind (a switch of kind keeps the role). */
export interface DestinationDraft {
  queueUrl: string;
  topicArn: string;
  eventBusArn: string;
  roleArn: string;
  source: string;
  detailType: string;
}

/** The draft of a webhook's destination (empty fields for a URL webhook). */
export function draftOf(destination: Destination | undefined): DestinationDraft {
  return {
    queueUrl: destination?.type === 'sqs' ? destination.queueUrl : '',
    topicArn: destination?.type === 'sns' ? destination.topicArn : '',
    eventBusArn: destination?.type === 'eventbridge' ? destination.eventBusArn : '',
    roleArn: destination?.roleArn ?? '',
    source: destination?.type === 'eventbridge' ? (destination.source ?? '') : '',
    detailType: destination?.type === 'eventbridge' ? (destination.detailType ?? '') : '',
  };
}

/** The destination the draft describes for a kind (an empty source or detail type: the default). */
export function destinationOf(type: Destination['type'], draft: DestinationDraft): Destination {
  const { roleArn } = draft;
  if (type === 'sqs') return { type, queueUrl: draft.queueUrl, roleArn };
  if (type === 'sns') return { type, topicArn: draft.topicArn, roleArn };
  return {
    type,
    eventBusArn: draft.eventBusArn,
    roleArn,
    ...(draft.source.trim() ? { source: draft.source.trim() } : {}),
    ...(draft.detailType.trim() ? { detailType: draft.detailType.trim() } : {}),
  };
}

/** Whether two destinations are the same (every field, an absent optional one included). */
export function sameDestination(a: Destination, b: Destination | undefined): boolean {
  if (!b) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  return [...new Set([...Object.keys(left), ...Object.keys(right)])].every((k) => left[k] === right[k]);
}

/** The destination's queue URL, topic ARN or bus ARN. */
function destinationLabel(destination: Destination): string {
  if (destination.type === 'sqs') return destination.queueUrl;
  if (destination.type === 'sns') return destination.topicArn;
  return destination.eventBusArn;
}

/** The URL, queue, topic or bus a webhook targets, as a table cell shows it. */
export function targetText(webhook: {
  url?: string | undefined;
  destination?: Destination | undefined;
}): string {
  return webhook.url ?? (webhook.destination ? destinationLabel(webhook.destination) : '');
}

/** The destination's fields as a detail page lists them (`[term, value]`, defaults spelt out). */
export function destinationDetails(destination: Destination): [string, string][] {
  const role: [string, string] = ['Role', destination.roleArn];
  if (destination.type === 'sqs') return [['SQS queue', destination.queueUrl], role];
  if (destination.type === 'sns') return [['SNS topic', destination.topicArn], role];
  return [
    ['EventBridge event bus', destination.eventBusArn],
    role,
    ['Event source', destination.source ?? 'causeway.webhooks (default)'],
    ['Event detail type', destination.detailType ?? 'the notification type (default)'],
  ];
}

/** A URL or one of the AWS destinations, as radio buttons in a labelled group. */
export function TargetChoice({
  id,
  value,
  onChange,
}: {
  id: string;
  value: Target;
  onChange: (t: Target) => void;
}) {
  const choices: [Target, string][] = [
    ['url', 'an HTTPS URL'],
    ...Object.entries(KINDS).map(([type, kind]): [Target, string] => [type as Target, kind.choice]),
  ];
  return (
    <fieldset class="scheme">
      <legend>Deliver to</legend>
      {choices.map(([choice, label]) => (
        <label class="check" key={choice}>
          <input
            type="radio"
            name={id}
            value={choice}
            checked={value === choice}
            onChange={() => onChange(choice)}
          />{' '}
          {label}
        </label>
      ))}
    </fieldset>
  );
}

interface FieldSpec {
  key: keyof DestinationDraft;
  label: string;
  suffix: string;
  placeholder: string;
  optional?: true;
}

const RESOURCE_FIELD: Record<Destination['type'], FieldSpec> = {
  sqs: {
    key: 'queueUrl',
    label: 'Queue URL',
    suffix: 'queue',
    placeholder: 'https://sqs.us-east-1.amazonaws.com/123456789012/orders',
  },
  sns: {
    key: 'topicArn',
    label: 'Topic ARN',
    suffix: 'topic',
    placeholder: 'arn:aws:sns:us-east-1:123456789012:orders',
  },
  eventbridge: {
    key: 'eventBusArn',
    label: 'Event bus ARN',
    suffix: 'bus',
    placeholder: 'arn:aws:events:us-east-1:123456789012:event-bus/orders',
  },
};

const EVENT_FIELDS: FieldSpec[] = [
  {
    key: 'source',
    label: 'Event source',
    suffix: 'source',
    placeholder: 'causeway.webhooks',
    optional: true,
  },
  {
    key: 'detailType',
    label: 'Event detail type',
    suffix: 'detail-type',
    placeholder: 'the notification type',
    optional: true,
  },
];

/**
 * The fields of a destination of `type` (required ones marked `*` when `required`), then the
 * trust its role needs; `fieldError` finds a refusal's message by the field's name.
 */
export function DestinationFields({
  idPrefix,
  type,
  draft,
  onChange,
  required,
  fieldError,
}: {
  idPrefix: string;
  type: Destination['type'];
  draft: DestinationDraft;
  onChange: (next: DestinationDraft) => void;
  required: boolean;
  fieldError: (field: string) => string | null | undefined;
}) {
  const fields: FieldSpec[] = [
    RESOURCE_FIELD[type],
    {
      key: 'roleArn',
      label: 'Role ARN',
      suffix: 'role',
      placeholder: 'arn:aws:iam::123456789012:role/causeway-deliveries',
    },
    ...(type === 'eventbridge' ? EVENT_FIELDS : []),
  ];
  return (
    <>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.suffix}`;
        const error = fieldError(field.key);
        return (
          <div class="field" key={field.key}>
            <label for={id}>
              {field.label}
              {field.optional ? ' (optional)' : required ? ' *' : ''}
            </label>
            <input
              id={id}
              spellcheck={false}
              placeholder={field.placeholder}
              value={draft[field.key]}
              onInput={(e) => onChange({ ...draft, [field.key]: (e.target as HTMLInputElement).value })}
            />
            {error && <span class="field-error">{error}</span>}
          </div>
        );
      })}
      <AwsTrustPanel id={`${idPrefix}-trust`} type={type} />
    </>
  );
}

/** What the caller's role must trust, read once from GET /webhooks/aws-trust. */
function AwsTrustPanel({ id, type }: { id: string; type: Destination['type'] }) {
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
  const kind = KINDS[type];
  return (
    <section class="aws-trust" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>The role the service assumes</h3>
      <p class="hint">
        Create a role in the {kind.resource}'s account with this trust policy and a permission to{' '}
        <code>{kind.action}</code> on the {kind.resource}. The service stores no keys: it assumes the role
        with your ExternalId for each delivery.
        {type === 'eventbridge' &&
          ' EventBridge re-serialises the event, so it carries no signature: use a bus of its own for these events and let only this role put events on it.'}
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
