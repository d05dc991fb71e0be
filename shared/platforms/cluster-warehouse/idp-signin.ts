/**
 * The identity provider half of the idp exchange (`iam-auth.ts`), Okta-style with `idp_host` +
 * `app_id`: username and password at `/api/v1/authn` → a session token → the app's SAML
 * response (`/app/amazon_aws/<appId>/sso/saml`). Messages name the host and app, never the
 * password, the token or the remote's text.
 */
import { ConnectionFailure } from '../driver';
import { type Budget, bounded, type ClusterAuthOptions, type Step } from './exchange';
import { samlResponseFromHtml } from './federation';

export interface IdpSettings {
  username: string;
  password: string;
  appId: string;
  idpHost: string;
  role: string;
}

async function readJson(response: Response): Promise<Record<string, unknown>> {
  try {
    const body: unknown = await response.json();
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Where the identity provider answers, and the step description for its messages. */
export interface IdpSite {
  origin: string;
  step: (label: string) => Step;
}

export function idpSite(idp: IdpSettings, options: ClusterAuthOptions): IdpSite {
  const origin = options.idpOrigin ?? `https://${idp.idpHost}`;
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return { origin, step: (label) => ({ label, host: idp.idpHost, port }) };
}

/** idp step 1: username and password → a one-time session token. */
export function signIn(idp: IdpSettings, site: IdpSite, budget: Budget): Promise<string> {
  return bounded(site.step('identity provider sign-in'), budget, async (signal) => {
    const response = await fetch(new URL('/api/v1/authn', site.origin), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ username: idp.username, password: idp.password }),
      redirect: 'error',
      signal,
    });
    const body = await readJson(response);
    if (response.status === 401 || response.status === 403)
      throw new ConnectionFailure(
        'authentication',
        'authn',
        `authentication at the identity provider ${idp.idpHost} failed: check the idp username and password`,
      );
    if (!response.ok)
      throw new ConnectionFailure(
        'other',
        'authn',
        `the identity provider ${idp.idpHost} answered the sign-in with HTTP ${response.status}`,
      );
    const status = typeof body.status === 'string' && /^[A-Z_]{1,40}$/.test(body.status) ? body.status : '';
    if (status !== 'SUCCESS' || typeof body.sessionToken !== 'string' || body.sessionToken.length === 0)
      throw new ConnectionFailure(
        'authentication',
        'authn',
        `the identity provider ${idp.idpHost} did not complete the sign-in${status ? ` (status ${status})` : ''}: ` +
          'the service signs in with username and password only (no MFA or password change)',
      );
    return body.sessionToken;
  });
}

/** idp step 2: the session token → the app's SAML response (the auto-submitting form's field). */
export function appSamlResponse(
  idp: IdpSettings,
  site: IdpSite,
  sessionToken: string,
  budget: Budget,
): Promise<string> {
  return bounded(site.step('identity provider SAML response'), budget, async (signal) => {
    const url = new URL(`/app/amazon_aws/${encodeURIComponent(idp.appId)}/sso/saml`, site.origin);
    url.searchParams.set('sessionToken', sessionToken);
    const response = await fetch(url, { headers: { accept: 'text/html' }, redirect: 'error', signal });
    const html = response.ok ? await response.text() : '';
    const value = samlResponseFromHtml(html);
    if (!value)
      throw new ConnectionFailure(
        'authentication',
        'saml',
        `the identity provider ${idp.idpHost} returned no SAML response for app ${idp.appId}` +
          `${response.ok ? '' : ` (HTTP ${response.status})`}: check appId and that the user is assigned to the app`,
      );
    return value;
  });
}
