/**
 * How a webhook's deliveries are signed (ADR 0018; docs/webhooks.md, "Asymmetric signatures"):
 * the scheme choice for creating and editing (`v1` HMAC-SHA256, `v1a` Ed25519 with a key pair the
 * service makes), the detail page's scheme, public key and JWKS URL, and what a credential change
 * answers once: a generated HMAC secret (rotation of a `v1` webhook, or a switch back to `v1`) or
 * a new public key (rotation of a `v1a` webhook).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { type Webhook, when } from './webhook-health';

export type Scheme = Webhook['signatureScheme'];

const SCHEMES: Scheme[] = ['v1', 'v1a'];
const SCHEME_LABEL: Record<Scheme, string> = {
  v1: 'v1 (HMAC-SHA256, default)',
  v1a: 'v1a (Ed25519)',
};

/** The visible text stays "Copy"; `what` completes the accessible name ("Copy the public key"). */
export function CopyButton({ text, what }: { text: string; what?: string }) {
  return (
    <button
      type="button"
      {...(what ? { 'aria-label': `Copy ${what}` } : {})}
      onClick={() => void navigator.clipboard?.writeText(text)}
    >
      Copy
    </button>
  );
}

/** The scheme as radio buttons in a labelled group, the hint tied to the group. */
export function SchemeChoice({
  id,
  value,
  onChange,
  hint,
  error,
}: {
  id: string;
  value: Scheme;
  onChange: (scheme: Scheme) => void;
  hint: ComponentChildren;
  error?: string | null | undefined;
}) {
  return (
    <fieldset class="scheme" aria-describedby={`${id}-hint`}>
      <legend>Signature scheme</legend>
      {SCHEMES.map((scheme) => (
        <label class="check" key={scheme}>
          <input
            type="radio"
            name={id}
            value={scheme}
            checked={value === scheme}
            onChange={() => onChange(scheme)}
          />{' '}
          {SCHEME_LABEL[scheme]}
        </label>
      ))}
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {error && <span class="field-error">{error}</span>}
    </fieldset>
  );
}

/** The create form's hint for the chosen scheme. */
export function createHint(scheme: Scheme): ComponentChildren {
  return scheme === 'v1a' ? (
    <>
      The service makes an Ed25519 key pair for the webhook and keeps the private key, so no secret is
      entered. Receivers verify <code>v1a,…</code> signatures with the public key or the JWKS URL shown on the
      webhook's page.
    </>
  ) : (
    <>
      Deliveries are signed <code>v1,…</code> (HMAC) with the secret below; without one they are sent
      unsigned.
    </>
  );
}

/** The edit form's hint: what switching away from the stored scheme does. */
export function switchHint(from: Scheme): ComponentChildren {
  const overlap =
    'so receivers keep verifying while they move; the signing credential cannot change again until the window ends.';
  return from === 'v1' ? (
    <>
      Switching to v1a makes an Ed25519 key pair. During the overlap window both signatures are sent,{' '}
      <code>v1a,&lt;new key&gt; v1,&lt;current secret&gt;</code> (the v1 one if the webhook has a secret),{' '}
      {overlap}
    </>
  ) : (
    <>
      Switching to v1 generates an HMAC secret, shown once after saving. During the overlap window both
      signatures are sent, <code>v1,&lt;new secret&gt; v1a,&lt;current key&gt;</code>, {overlap}
    </>
  );
}

/** The detail page's signing entries (inside its <dl>). */
export function SigningDetails({ webhook }: { webhook: Webhook }) {
  const { signatureScheme: scheme, publicKey, jwksUrl } = webhook;
  return (
    <>
      <dt>Signature scheme</dt>
      <dd data-scheme={scheme}>{SCHEME_LABEL[scheme] ?? scheme}</dd>
      {scheme === 'v1a' && publicKey && (
        <>
          <dt>Public key</dt>
          <dd>
            <code class="mono" data-public-key>
              {publicKey}
            </code>{' '}
            <CopyButton text={publicKey} what="the public key" />
          </dd>
        </>
      )}
      {jwksUrl && (
        <>
          <dt>JWKS URL</dt>
          <dd>
            <a class="mono" href={jwksUrl} data-jwks-url>
              {jwksUrl}
            </a>
            <span class="hint">
              {' '}
              the public keys as a JWK set, no API key needed
              {scheme === 'v1' ? '; empty once the overlap window of the switch to v1 has passed' : ''}
            </span>
          </dd>
        </>
      )}
      {webhook.previousSecretExpiresAt && (
        <>
          {/* A webhook that never had a key pair (no jwksUrl) can only have had a secret. */}
          <dt>{jwksUrl ? 'Previous secret or key' : 'Previous secret'}</dt>
          <dd>signs too until {when(webhook.previousSecretExpiresAt)}</dd>
        </>
      )}
    </>
  );
}

/** Brings a freshly shown credential into view (it can appear below the fold). */
function useShown() {
  const element = useRef<HTMLElement>(null);
  useEffect(() => {
    element.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  return element;
}

/** A generated HMAC secret, shown this once (rotation of a `v1` webhook, or a switch to `v1`). */
export function OneTimeSecret({
  secret,
  previous,
  onDismiss,
}: {
  secret: string;
  /** What still signs beside it, and until when. */
  previous: string;
  onDismiss: () => void;
}) {
  const element = useShown();
  return (
    <section class="secret" aria-label="New signing secret" ref={element}>
      <p>New secret (shown this once: store it now):</p>
      <code class="mono" data-secret>
        {secret}
      </code>{' '}
      <CopyButton text={secret} />
      <p>{previous}</p>
      <button type="button" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}

/** A `v1a` rotation's new public key (not a secret: it stays on the page and in the JWK set). */
export function NewPublicKey({
  publicKey,
  until,
  onDismiss,
}: {
  publicKey: string;
  until?: string | undefined;
  onDismiss: () => void;
}) {
  const element = useShown();
  return (
    <section class="secret" aria-label="New public key" ref={element}>
      <p>New public key (also shown on this page and published at the JWKS URL):</p>
      <code class="mono" data-public-key>
        {publicKey}
      </code>{' '}
      <CopyButton text={publicKey} what="the new public key" />
      <p>
        {until
          ? `The previous key keeps signing until ${when(until)}: deliveries carry both v1a signatures until then.`
          : 'There was no previous key: only this one signs.'}
      </p>
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}

/**
 * The masked signature header of a recorded attempt. The history records no scheme (and the
 * webhook's scheme today need not be the one it had at the attempt), so without one both forms
 * are named.
 */
export function maskedSignature(scheme?: Scheme): string {
  const masked = (s: Scheme) => `${s},••••••••`;
  return scheme
    ? `webhook-signature: ${masked(scheme)} (masked)`
    : `webhook-signature: ${masked('v1')} or ${masked('v1a')} (masked) — v1 for an HMAC secret, v1a for an Ed25519 key; both during an overlap window`;
}
