/**
 * An integration's data sources (ADR 0016), on its page when its type takes them: the list (name,
 * prefix, id, registered), an add form (name, prefix) whose refusal is shown where it belongs
 * (a field's problem beside the field, a refused entry's reason beside the button), and delete
 * with a confirmation first.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from './api';
import { confirmAction } from './confirm';
import { ActionError, fieldErrors } from './errors';
import { dataSourceTypes } from './openapi';
import { toast } from './toast';

type Integration = components['schemas']['Integration'];
type DataSource = components['schemas']['DataSource'];

export function DataSources({ item }: { item: Integration }) {
  const [takes, setTakes] = useState(false);
  const [list, setList] = useState<DataSource[] | null>(null);
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [listError, setListError] = useState<ApiError | null>(null);
  const integrationId = Number(item.id);

  const load = async () => {
    const {
      data,
      error: failed,
      response,
    } = await api.GET('/data-sources', {
      params: { query: { integrationId, pageSize: 100 } },
    });
    if (failed || !data) return setListError(asApiError(failed, response.status));
    setListError(null);
    setList(data.dataSources);
  };
  useEffect(() => {
    void dataSourceTypes().then((types) => {
      setTakes(types.has(item.type));
      if (types.has(item.type)) void load();
    });
  }, [item.id, item.type]);
  if (!takes) return null;

  const add = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const {
      data,
      error: failed,
      response,
    } = await api.POST('/data-sources', {
      body: { type: item.type as never, integrationId, dataSources: [{ dataSourceName: name, prefix }] },
    });
    if (failed || !data) {
      const refused = asApiError(failed, response.status);
      // A refused entry's reason (422) names its field like a validation message does.
      const entry = (refused.errors as { message: string }[] | undefined)?.[0]?.message;
      return setError(entry ? { ...refused, message: entry } : refused);
    }
    toast(`Data source #${data.dataSources[0]?.dataSourceId} registered`);
    setName('');
    setPrefix('');
    await load();
  };
  const remove = async (ds: DataSource) => {
    const confirmed = await confirmAction({
      title: `Delete data source #${ds.dataSourceId} (${ds.dataSourceName})?`,
      message: 'The service forgets the data source; nothing is removed from the storage.',
      confirmLabel: 'Delete data source',
    });
    if (!confirmed) return;
    const { error: failed, response } = await api.DELETE('/data-sources/{id}', {
      params: { path: { id: ds.dataSourceId } },
    });
    if (failed) return setListError(asApiError(failed, response.status));
    toast(`Data source #${ds.dataSourceId} deleted`);
    await load();
  };
  const fields = fieldErrors(error);
  const at = (field: string) => fields[`dataSources[0].${field}`];
  return (
    <section aria-labelledby="data-sources-title">
      <h2 id="data-sources-title">Data sources</h2>
      <ActionError error={listError} />
      {list && list.length === 0 && <p>No data source is registered under this integration.</p>}
      {list && list.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Id</th>
              <th scope="col">Registered</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((ds) => (
              <tr key={ds.dataSourceId}>
                <td>{ds.dataSourceName}</td>
                <td>
                  <code>{ds.prefix}</code>
                </td>
                <td>{ds.dataSourceId}</td>
                <td>{new Date(ds.createdAt).toLocaleString()}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => remove(ds)}
                    aria-label={`Delete data source ${ds.dataSourceName}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {item.status === 'enabled' && (
        <form onSubmit={add} aria-labelledby="data-source-add-title">
          <h3 id="data-source-add-title">Add a data source</h3>
          <TextField
            id="dataSourceName"
            label="Name"
            value={name}
            onInput={setName}
            error={at('dataSourceName')}
          />
          <TextField
            id="dataSourcePrefix"
            label="Prefix, bucket or object (s3://bucket/prefix/)"
            value={prefix}
            onInput={setPrefix}
            error={at('prefix')}
          />
          <div class="actions">
            <button type="submit">Add data source</button>
            {!at('prefix') && !at('dataSourceName') && <ActionError error={error} />}
          </div>
        </form>
      )}
    </section>
  );
}

/** A required text field with its problem beside it. */
function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error: string | undefined;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        required
        value={props.value}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? `${props.id}-error` : undefined}
      />
      {props.error && (
        <span id={`${props.id}-error`} class="field-error">
          {props.error}
        </span>
      )}
    </div>
  );
}
