import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError, rawCall } from '../api';
import { PeriodicCheck } from '../assurance';
import { ConfigView } from '../config-view';
import { DataSources } from '../data-sources';
import { ActionError, ErrorBanner, fieldErrors } from '../errors';
import { DeleteIntegration } from '../integration-delete';
import { Loading } from '../loading';
import { configPaths, typeSchemas } from '../openapi';
import { compact, type Schema, SchemaFields, storedSecrets, type Value } from '../schema-form';
import { type ScriptStep, ScriptSteps } from '../scripts';
import { failureReason, isMoving, StatusBadge } from '../status';
import { toast } from '../toast';
import { ValidationResults } from '../validation';

type Integration = components['schemas']['Integration'];

export function IntegrationDetail({ id }: { id: number }) {
  const [item, setItem] = useState<Integration | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [typeSchema, setTypeSchema] = useState<Schema | undefined>();
  const [editing, setEditing] = useState<Value | null>(null);
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [keyError, setKeyError] = useState<ApiError | null>(null);
  const [regenerated, setRegenerated] = useState<{ apiKey?: string; configurationSnippet?: string } | null>(
    null,
  );
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
    if (item) void typeSchemas().then((s) => setTypeSchema(s.get(item.type)));
  }, [item?.type]);

  if (!item) return error ? <ErrorBanner error={error} /> : <Loading label="Loading the integration…" />;
  const schema = typeSchema?.properties?.config as Schema | undefined;
  // What the document says of the type: whether PUT takes it, which fields it may not change,
  // whether its cluster key is issued here, which scripts it has.
  const updatable = typeSchema?.['x-updatable'] === true;
  const locked = configPaths(typeSchema, 'x-non-editable');
  const issuesApiKey = typeSchema?.['x-issues-api-key'] === true;
  const scripts = new Set((typeSchema?.['x-scripts'] ?? []) as string[]);
  const config = (item.config ?? {}) as Value;
  const stored = storedSecrets(config, 'config');
  const payload = (values: Value) => ({
    type: item.type,
    autoBootstrap: item.autoBootstrap,
    config: compact(values),
  });
  const refresh = () => setTick((t) => t + 1);

  const save = async () => {
    if (!editing) return;
    setSaveError(null);
    const result = await rawCall('PUT', `/integrations/${id}`, {
      text: JSON.stringify(payload(editing)),
      contentType: 'application/json',
    });
    if (result.status >= 400) return setSaveError(asApiError(result.json, result.status));
    setEditing(null);
    toast(`Saving integration #${id}`);
    refresh();
  };

  const regenerate = async () => {
    setKeyError(null);
    const result = await rawCall('POST', `/integrations/${id}/regenerate`);
    if (result.status >= 400) return setKeyError(asApiError(result.json, result.status));
    setRegenerated(result.json as { apiKey?: string; configurationSnippet?: string });
  };

  const live = item.status !== 'deleted';
  const offered = operatorScripts(item, scripts, payload(editing ?? config), payload(config));
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
        {item.autoBootstrap === undefined
          ? 'no remote setup'
          : item.autoBootstrap
            ? 'automatic setup'
            : 'manual setup'}
      </p>
      <ErrorBanner error={error} />
      <ValidationResults results={item.validationResults} />
      {item.status === 'createError' && scripts.has('cleanup') && (
        <section aria-labelledby="cleanup-title">
          <h2 id="cleanup-title">Clean up after the failed setup</h2>
          <p>
            Run this on the platform to remove what the failed setup left behind, then create the integration
            again (or edit it to retry).
          </p>
          <ScriptSteps
            steps={[{ title: 'cleanup', path: `/integrations/${id}/scripts/cleanup` }]}
            loadAtOnce
          />
        </section>
      )}
      <PeriodicCheck item={item} onChange={refresh} />
      {editing && schema ? (
        <form
          aria-labelledby="edit-title"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2 id="edit-title">Edit</h2>
          {locked.size > 0 && (
            <p class="hint">
              Locked: {[...locked].map((p) => p.replace(/^config\./, '')).join(', ')} cannot change after
              creation.
            </p>
          )}
          <SchemaFields
            schema={schema}
            value={editing}
            onChange={setEditing}
            path="config"
            errors={fieldErrors(saveError)}
            locked={locked}
            stored={stored}
          />
          <div class="actions">
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <ActionError error={saveError} />
          </div>
        </form>
      ) : (
        <section aria-labelledby="config-title">
          <h2 id="config-title">Configuration</h2>
          <ConfigView config={config} schema={schema} />
          <div class="actions">
            {schema && updatable && live && (
              <button
                type="button"
                onClick={() => {
                  setSaveError(null);
                  setEditing(structuredClone(config));
                }}
              >
                Edit
              </button>
            )}
            {issuesApiKey && item.status === 'enabled' && (
              <button type="button" onClick={regenerate}>
                Regenerate key
              </button>
            )}
            <ActionError error={keyError} />
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
      {schema && offered.length > 0 && (
        <section aria-labelledby="scripts-title">
          <h2 id="scripts-title">Scripts for the operator</h2>
          <p>Each script is for one situation, described with it; none needs running otherwise.</p>
          <ScriptSteps steps={offered} ordered={false} />
        </section>
      )}
      <DataSources item={item} />
      {live && <DeleteIntegration item={item} onDeleting={refresh} />}
    </section>
  );
}

/** Statuses in which a stored setup is in use and an edit can be saved. */
const EDITABLE = new Set(['enabled', 'recurringValidationError', 'editError']);
/** Statuses in which the cleanup script applies (the API refuses it elsewhere; createError has its own section). */
const CLEANUP = new Set(['editError', 'deleteError', 'disabled']);
/** Statuses in which a manual setup is settled and may be removed. */
const REMOVABLE = new Set(['enabled', 'recurringValidationError', 'createError', 'editError', 'deleteError']);

/**
 * The scripts that apply to the integration now, each saying when to run it: a manual setup's
 * edit script while an edit can be saved, its removal scripts before a delete, and the cleanup
 * script only after a failed edit or teardown or a force-disable, never on a working setup.
 */
function operatorScripts(
  item: Integration,
  scripts: ReadonlySet<string>,
  edited: unknown,
  stored: unknown,
): ScriptStep[] {
  const manual = item.autoBootstrap === false;
  const out: ScriptStep[] = [];
  if (manual && scripts.has('edit') && EDITABLE.has(item.status))
    out.push({
      title: 'edit',
      path: `/integrations/${item.id}/scripts/edit`,
      body: edited,
      description:
        'Before you save an edit: changes the platform from the stored configuration to the edited one. Run it, then Save.',
    });
  if (CLEANUP.has(item.status) && scripts.has('cleanup'))
    out.push({
      title: 'cleanup',
      path: `/integrations/${item.id}/scripts/cleanup`,
      description:
        item.status === 'disabled'
          ? 'The integration was force-disabled without removing anything remotely: this removes what its setup created.'
          : 'Removes what the failed edit or teardown left on the platform.',
    });
  if (manual && REMOVABLE.has(item.status)) {
    out.push({
      title: 'delete',
      path: `/integrations/${item.id}/scripts/delete`,
      description:
        'Before you delete this integration: removes everything its setup created on the platform.',
    });
    if (scripts.has('post-cleanup'))
      out.push({
        title: 'post-cleanup',
        path: '/integrations/scripts/post-cleanup',
        body: stored,
        description:
          'After the delete script: removes what the setup made outside the integration’s own database, such as a login in master (the script says so when there is nothing).',
      });
  }
  return out;
}
