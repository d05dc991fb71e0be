/**
 * Deleting an integration: the privileged credentials an automatic setup's teardown needs, as
 * labelled fields built from the DELETE body the document gives for the type; forceDisable with
 * its warning; a confirmation first; the refusal beside the button, each credential's problem
 * beside its field.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, asApiError, rawCall } from './api';
import { confirmAction } from './confirm';
import { ActionError, fieldErrors } from './errors';
import { deleteSchemas } from './openapi';
import { navigate } from './router';
import { compact, defaults, type Schema, SchemaFields, type Value } from './schema-form';
import { toast } from './toast';

type Integration = components['schemas']['Integration'];

export function DeleteIntegration({ item, onDeleting }: { item: Integration; onDeleting: () => void }) {
  const [schema, setSchema] = useState<Schema | undefined>();
  const [credentials, setCredentials] = useState<Value>({});
  const [forceDisable, setForceDisable] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    if (!item.autoBootstrap) return;
    void deleteSchemas().then((all) => {
      const found = all.get(item.type);
      setSchema(found);
      if (found) setCredentials(defaults(found));
    });
  }, [item.type, item.autoBootstrap]);

  const remove = async () => {
    const confirmed = await confirmAction({
      title: `Delete integration #${item.id} (${item.type})?`,
      message: item.autoBootstrap
        ? 'The service tears down what its setup created on the platform, then forgets the integration.'
        : 'The service forgets the integration; run the delete script on the platform to remove what the setup created.',
      confirmLabel: 'Delete integration',
    });
    if (!confirmed) return;
    setError(null);
    const body = schema && !forceDisable ? compact(credentials) : {};
    const sent = Object.keys(body).length > 0;
    const result = await rawCall(
      'DELETE',
      `/integrations/${item.id}${forceDisable ? '?forceDisable=true' : ''}`,
      sent ? { text: JSON.stringify(body), contentType: 'application/json' } : undefined,
    );
    if (result.status >= 400) return setError(asApiError(result.json, result.status));
    toast(forceDisable ? `Integration #${item.id} disabled` : `Deleting integration #${item.id}`);
    onDeleting();
  };
  const required = new Set(((schema?.['x-required'] ?? []) as string[]).map((p) => `credentials.${p}`));
  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">Delete</h2>
      {schema && !forceDisable && (
        <fieldset>
          <legend>Privileged credentials for the teardown</legend>
          <SchemaFields
            schema={schema}
            value={credentials}
            onChange={setCredentials}
            path="credentials"
            errors={fieldErrors(error, 'credentials.')}
            alsoRequired={required}
          />
        </fieldset>
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
          forceDisable deletes the integration here even if the remote teardown fails: objects may be left on
          the platform, to remove with the cleanup script.
        </p>
      )}
      <div class="actions">
        <button type="button" class="danger" onClick={remove}>
          Delete
        </button>
        <button type="button" onClick={() => navigate('/integrations')}>
          Back
        </button>
        <ActionError error={error} />
      </div>
    </section>
  );
}
