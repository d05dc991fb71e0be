import { useEffect, useState } from 'preact/hooks';
import { type ApiError, pastedBody, rawCall } from '../api';
import { ErrorBanner, fieldErrors } from '../errors';
import { Loading } from '../loading';
import { configPaths, typeSchemas } from '../openapi';
import { navigate } from '../router';
import { compact, defaults, type Schema, SchemaFields, type Value } from '../schema-form';
import { ScriptSteps } from '../scripts';
import { ValidationResults } from '../validation';

interface Accepted {
  id: string;
  status: string;
  validationResults?: {
    status: string;
    validationTests: { name: string; status: string; message?: string }[];
  };
  apiKey?: string;
  configurationSnippet?: string;
}

export function IntegrationNew() {
  const [schemas, setSchemas] = useState<Map<string, Schema> | null>(null);
  const [type, setType] = useState('');
  const [autoBootstrap, setAutoBootstrap] = useState(false);
  const [config, setConfig] = useState<Value>({});
  const [mode, setMode] = useState<'form' | 'paste'>('form');
  const [paste, setPaste] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [dryRun, setDryRun] = useState<Accepted | null>(null);
  const [issued, setIssued] = useState<Accepted | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void typeSchemas().then((s) => {
      setSchemas(s);
      const first = [...s.keys()][0] ?? '';
      setType(first);
    });
  }, []);
  const typeSchema = schemas?.get(type);
  const configSchema = typeSchema?.properties?.config as Schema | undefined;
  // The document says whether the type accepts automatic setup: never offer what the API refuses.
  const automaticSetup = typeSchema?.['x-automatic-setup'] === true;
  useEffect(() => {
    if (configSchema) setConfig(defaults(configSchema));
    setAutoBootstrap(automaticSetup);
    setDryRun(null);
    setError(null);
  }, [type, schemas]);
  const scripts = new Set((typeSchema?.['x-scripts'] ?? []) as string[]);
  const manualSteps = [
    { title: '1. initial-create', kind: 'initial-create' },
    { title: '2. create', kind: 'create' },
  ].filter((s) => scripts.has(s.kind));
  const alsoRequired = autoBootstrap ? configPaths(typeSchema, 'x-required-when-automatic') : undefined;

  const payload = () => (configSchema ? { type, autoBootstrap, config: compact(config) } : { type });
  const body = () =>
    mode === 'paste'
      ? pastedBody(paste)
      : { text: JSON.stringify(payload()), contentType: 'application/json' };

  const submit = async (dry: boolean) => {
    setBusy(true);
    setError(null);
    const result = await rawCall('POST', `/integrations${dry ? '?dryRun=true' : ''}`, body());
    setBusy(false);
    const answer = result.json as Accepted & ApiError;
    if (result.status >= 400) {
      setError(answer);
      if (answer?.validationResults) setDryRun(answer);
      return;
    }
    if (dry) setDryRun(answer);
    else if (answer.apiKey) setIssued(answer);
    else navigate(`/integrations/${answer.id}`);
  };

  if (issued) {
    return (
      <section>
        <h1>Integration #{issued.id} created</h1>
        <p class="warning">
          This key and snippet are shown once. Copy them now; regenerate issues a new key.
        </p>
        <label for="fs-key">Cluster API key</label>
        <input id="fs-key" readOnly value={issued.apiKey} />
        <label for="fs-snippet">Configuration snippet</label>
        <textarea id="fs-snippet" readOnly rows={6} value={issued.configurationSnippet} />
        <a class="button" href={`#/integrations/${issued.id}`}>
          Open the integration
        </a>
      </section>
    );
  }
  const errors = fieldErrors(error);
  return (
    <section>
      <h1>New integration</h1>
      {!schemas && <Loading label="Loading the platform schemas…" />}
      {schemas && (
        <form onSubmit={(e) => e.preventDefault()}>
          <div class="field">
            <label for="type">Platform type</label>
            <select id="type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
              {[...schemas.keys()].map((t) => (
                <option value={t}>{t}</option>
              ))}
            </select>
          </div>
          <div class="tabs" role="radiogroup" aria-label="How to enter the configuration">
            <label>
              <input type="radio" name="mode" checked={mode === 'form'} onChange={() => setMode('form')} />{' '}
              Form
            </label>
            <label>
              <input type="radio" name="mode" checked={mode === 'paste'} onChange={() => setMode('paste')} />{' '}
              Paste YAML or JSON
            </label>
          </div>
          {mode === 'paste' ? (
            <div class="field">
              <label for="paste">Request body (YAML or JSON)</label>
              <textarea
                id="paste"
                rows={14}
                value={paste}
                onInput={(e) => setPaste((e.target as HTMLTextAreaElement).value)}
              />
            </div>
          ) : (
            configSchema && (
              <>
                <div class="field check">
                  <input
                    id="autoBootstrap"
                    type="checkbox"
                    checked={autoBootstrap}
                    disabled={!automaticSetup}
                    aria-describedby="autoBootstrap-hint"
                    onChange={(e) => setAutoBootstrap((e.target as HTMLInputElement).checked)}
                  />
                  <label for="autoBootstrap">Set up the remote automatically (autoBootstrap)</label>
                  <span class={errors.autoBootstrap ? 'field-error' : 'hint'} id="autoBootstrap-hint">
                    {errors.autoBootstrap ??
                      (automaticSetup
                        ? 'The service creates what it needs on the platform with the credentials below.'
                        : `${type} has no automatic setup${manualSteps.length > 0 ? ': run the setup scripts below, then Create' : ''}.`)}
                  </span>
                </div>
                <fieldset>
                  <legend>config</legend>
                  <SchemaFields
                    schema={configSchema}
                    value={config}
                    onChange={setConfig}
                    path="config"
                    errors={errors}
                    alsoRequired={alsoRequired}
                  />
                </fieldset>
              </>
            )
          )}
          <ErrorBanner error={error} />
          <ValidationResults results={dryRun?.validationResults} />
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => submit(true)}>
              Dry run
            </button>
            <button type="button" class="primary" disabled={busy} onClick={() => submit(false)}>
              Create
            </button>
          </div>
          {configSchema && !autoBootstrap && mode === 'form' && manualSteps.length > 0 && (
            <section>
              <h2>Manual setup scripts</h2>
              <p>Run these on the platform in order, then Create.</p>
              <ScriptSteps
                steps={manualSteps.map((s) => ({
                  title: s.title,
                  path: `/integrations/scripts/${s.kind}`,
                  body: payload(),
                }))}
              />
            </section>
          )}
        </form>
      )}
    </section>
  );
}
