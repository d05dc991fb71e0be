import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError, pastedBody, rawCall } from '../api';
import { PeriodicCheck } from '../assurance';
import { confirmAction } from '../confirm';
import { ActionError, ErrorBanner, fieldErrors } from '../errors';
import { Loading } from '../loading';
import { typeSchemas } from '../openapi';
import { navigate } from '../router';
import { compact, type Schema, SchemaFields, type Value } from '../schema-form';
import { ScriptSteps } from '../scripts';
import { failureReason, isMoving, StatusBadge } from '../status';
import { toast } from '../toast';
import { ValidationResults } from '../validation';

type Integration = components['schemas']['Integration'];

export function IntegrationDetail({ id }: { id: number }) {
  const [item, setItem] = useState<Integration | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [schema, setSchema] = useState<Schema | undefined>();
  const [issuesApiKey, setIssuesApiKey] = useState(false);
  const [editing, setEditing] = useState<Value | null>(null);
  const [locked, setLocked] = useState<Set<string>>(new Set());
  const [credentials, setCredentials] = useState('');
  const [forceDisable, setForceDisable] = useState(false);
  const [regenerated, setRegenerated] = useState<{ apiKey?: string; configurationSnippet?: string } | null>(
    null,
  );
  const [deleteError, setDeleteError] = useState<ApiError | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let timer: number | undefined;
    const load = async () => {
      const {
        data,
        error: failure,
        response,
      } = await api.GET('/integrations/{id}', { params: { path: { id } } });
      if (!data) return setError(asApiError(failure, response.status));
      setItem(data);
      // Follow the status live until it settles.
      if (isMoving(data.status)) timer = window.setTimeout(load, 1000);
    };
    void load();
    return () => window.clearTimeout(timer);
  }, [id, tick]);
  useEffect(() => {
    if (item)
      void typeSchemas().then((s) => {
        const typeSchema = s.get(item.type);
        setSchema(typeSchema?.properties?.config as Schema | undefined);
        // The document marks the types whose cluster authenticates with a key the service issues.
        setIssuesApiKey((typeSchema as Record<string, unknown> | undefined)?.['x-issues-api-key'] === true);
      });
  }, [item?.type]);

  if (!item) return error ? <ErrorBanner error={error} /> : <Loading label="Loading the integration…" />;
  const payload = (config: Value) => ({
    type: item.type,
    autoBootstrap: item.autoBootstrap,
    config: compact(config),
  });

  const save = async () => {
    if (!editing) return;
    setError(null);
    const result = await rawCall('PUT', `/integrations/${id}`, {
      text: JSON.stringify(payload(editing)),
      contentType: 'application/json',
    });
    const answer = result.json as ApiError & { attributes?: string[] };
    if (result.status >= 400) {
      setError(answer);
      // Attributes the type does not let an edit change: locked, back to the stored values.
      if (Array.isArray(answer.attributes)) {
        setLocked(new Set(answer.attributes.map((a) => `config.${a}`)));
        setEditing({
          ...editing,
          ...Object.fromEntries(answer.attributes.map((a) => [a, item.config?.[a]])),
        });
      }
      return;
    }
    setEditing(null);
    setTick((t) => t + 1);
  };

  const remove = async () => {
    const confirmed = await confirmAction({
      title: `Delete integration #${item.id} (${item.type})?`,
      message: item.autoBootstrap
        ? 'The service tears down what its setup created on the platform, then forgets the integration.'
        : 'The service forgets the integration; run the delete script on the platform to remove what the setup created.',
      confirmLabel: 'Delete integration',
    });
    if (!confirmed) return;
    setDeleteError(null);
    const query = forceDisable ? '?forceDisable=true' : '';
    const text = credentials.trim();
    const result = await rawCall(
      'DELETE',
      `/integrations/${id}${query}`,
      text ? pastedBody(text) : undefined,
    );
    if (result.status >= 400) return setDeleteError(result.json as ApiError);
    toast(`Deleting integration #${item.id}`);
    setTick((t) => t + 1);
  };

  const regenerate = async () => {
    const result = await rawCall('POST', `/integrations/${id}/regenerate`);
    if (result.status >= 400) return setError(result.json as ApiError);
    setRegenerated(result.json as { apiKey?: string; configurationSnippet?: string });
  };

  const errors = fieldErrors(error);
  const config = (item.config ?? {}) as Value;
  return (
    <section>
      <p>
        <a href="#/integrations">← Integrations</a>
      </p>
      <h1>
        Integration #{item.id} · {item.type}
      </h1>
      <p>
        Status: <StatusBadge status={item.status} reason={failureReason(item)} />{' '}
        {item.autoBootstrap ? 'automatic setup' : 'manual setup'}
      </p>
      <ErrorBanner error={error} />
      <ValidationResults results={item.validationResults} />
      <PeriodicCheck item={item} onChange={() => setTick((t) => t + 1)} />
      {editing && schema ? (
        <form onSubmit={(e) => e.preventDefault()}>
          <h2>Edit</h2>
          <SchemaFields
            schema={schema}
            value={editing}
            onChange={setEditing}
            path="config"
            errors={errors}
            locked={locked}
          />
          <div class="actions">
            <button type="button" class="primary" onClick={save}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <section>
          <h2>Configuration</h2>
          <pre class="config">{JSON.stringify(config, null, 2)}</pre>
          <div class="actions">
            {schema && item.status !== 'deleted' && (
              <button type="button" onClick={() => setEditing(structuredClone(config))}>
                Edit
              </button>
            )}
            {issuesApiKey && item.status === 'enabled' && (
              <button type="button" onClick={regenerate}>
                Regenerate key
              </button>
            )}
          </div>
        </section>
      )}
      {regenerated && (
        <div class="once">
          <p class="warning">Shown once: copy the new key now.</p>
          <label for="fs-key">Cluster API key</label>
          <input id="fs-key" readOnly value={regenerated.apiKey} />
          <label for="fs-snippet">Configuration snippet</label>
          <textarea id="fs-snippet" readOnly rows={5} value={regenerated.configurationSnippet} />
        </div>
      )}
      {schema && item.status !== 'deleted' && (
        <section>
          <h2>Scripts</h2>
          <ScriptSteps
            steps={[
              { title: 'edit', path: `/integrations/${id}/scripts/edit`, body: payload(editing ?? config) },
              { title: 'delete', path: `/integrations/${id}/scripts/delete` },
              { title: 'cleanup', path: `/integrations/${id}/scripts/cleanup` },
              { title: 'post-cleanup', path: '/integrations/scripts/post-cleanup', body: payload(config) },
            ]}
          />
        </section>
      )}
      {item.status !== 'deleted' && (
        <section>
          <h2>Delete</h2>
          {item.autoBootstrap && (
            <div class="field">
              <label for="credentials">Privileged credentials for the teardown (YAML or JSON)</label>
              <textarea
                id="credentials"
                rows={4}
                value={credentials}
                onInput={(e) => setCredentials((e.target as HTMLTextAreaElement).value)}
              />
            </div>
          )}
          <div class="field check">
            <input
              id="forceDisable"
              type="checkbox"
              checked={forceDisable}
              onChange={(e) => setForceDisable((e.target as HTMLInputElement).checked)}
            />
            <label for="forceDisable">forceDisable</label>
          </div>
          {forceDisable && (
            <p class="warning">
              forceDisable deletes the integration here even if the remote teardown fails: objects may be left
              on the platform, to remove with the cleanup script.
            </p>
          )}
          <div class="actions">
            <button type="button" class="danger" onClick={remove}>
              Delete
            </button>
            <button type="button" onClick={() => navigate('/integrations')}>
              Back
            </button>
            <ActionError error={deleteError} />
          </div>
        </section>
      )}
    </section>
  );
}
