import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api, asApiError } from './api';
import { ConfirmHost } from './confirm';
import { ErrorBanner } from './errors';
import { Loading } from './loading';
import { EventCatalog } from './pages/EventCatalog';
import { History } from './pages/History';
import { IntegrationDetail } from './pages/IntegrationDetail';
import { IntegrationNew } from './pages/IntegrationNew';
import { Integrations } from './pages/Integrations';
import { SignIn } from './pages/SignIn';
import { WebhookDetail } from './pages/WebhookDetail';
import { Webhooks } from './pages/Webhooks';
import { match, route } from './router';
import { apiKey, isAdmin, me, signOut } from './session';
import { Toasts } from './toast';
import './styles.css';

function Page() {
  const path = route.value;
  const admin = isAdmin();
  if (admin && path === '/integrations/new') return <IntegrationNew />;
  const integration = admin ? match('/integrations/:id', path) : null;
  if (integration) return <IntegrationDetail id={Number(integration.id)} />;
  if (admin && (path === '/integrations' || path === '/')) return <Integrations />;
  const webhook = match('/webhooks/:id', path);
  // Keyed: another webhook's page starts afresh (no secret or key shown for the previous one).
  if (webhook) return <WebhookDetail key={webhook.id} id={Number(webhook.id)} />;
  if (path === '/history') return <History />;
  if (path === '/catalogue') return <EventCatalog />;
  return <Webhooks />;
}

function Shell() {
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    api.GET('/me').then(({ data, error: failure, response }) => {
      if (data) me.value = data;
      else if (response.status !== 401) setError(asApiError(failure, response.status));
    });
  }, [apiKey.value]);
  if (error) return <ErrorBanner error={error} />;
  if (!me.value) return <Loading />;
  const path = route.value;
  const tab = (href: string, label: string) => (
    <a href={`#${href}`} aria-current={path.startsWith(href) ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header>
        <strong>Causeway</strong>
        <nav aria-label="Sections">
          {isAdmin() && tab('/integrations', 'Integrations')}
          {tab('/webhooks', 'Webhooks')}
          {tab('/history', 'Delivery history')}
          {tab('/catalogue', 'Event catalogue')}
        </nav>
        <span class="who">
          {me.value.name}
          {isAdmin() ? ' (admin)' : ''}
        </span>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main>
        <Page />
      </main>
    </>
  );
}

function App() {
  return (
    <>
      {apiKey.value ? <Shell /> : <SignIn />}
      <Toasts />
      <ConfirmHost />
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
