import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../shared/openapi/api-types';
import { type ApiError, api, asApiError } from '../api';
import { LastCheck } from '../assurance';
import { ErrorBanner } from '../errors';
import { Loading } from '../loading';
import { typeSchemas } from '../openapi';
import type { Schema } from '../schema-form';
import { failureReason, isMoving, StatusBadge } from '../status';

type Integration = components['schemas']['Integration'];

export function Integrations() {
  const [items, setItems] = useState<Integration[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [types, setTypes] = useState<Map<string, Schema>>(new Map());
  useEffect(() => {
    void typeSchemas().then(setTypes);
  }, []);
  // The document names, per type, the config fields that tell two integrations apart.
  const listed = (i: Integration, key: 'x-host-field' | 'x-name-field') => {
    const field = types.get(i.type)?.[key] as string | undefined;
    const value = field ? i.config?.[field] : undefined;
    return typeof value === 'string' && value !== '' ? value : <span class="muted">—</span>;
  };
  useEffect(() => {
    let timer: number | undefined;
    const load = async () => {
      const { data, error: failure, response } = await api.GET('/integrations');
      if (data) {
        setItems(data);
        // Live badges: poll while something is still moving.
        if (data.some((i) => isMoving(i.status))) timer = window.setTimeout(load, 1500);
      } else setError(asApiError(failure, response.status));
    };
    void load();
    return () => window.clearTimeout(timer);
  }, []);
  return (
    <section>
      <div class="title-row">
        <h1>Integrations</h1>
        <a class="button" href="#/integrations/new">
          New integration
        </a>
      </div>
      <ErrorBanner error={error} />
      {items === null && !error && <Loading label="Loading integrations…" />}
      {items && items.length === 0 && <p>No integrations yet.</p>}
      {items && items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">ID</th>
                <th scope="col">Type</th>
                <th scope="col">Host</th>
                <th scope="col">Name</th>
                <th scope="col">Setup</th>
                <th scope="col">Status</th>
                <th scope="col">Last check</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id}>
                  <td>
                    <a href={`#/integrations/${i.id}`}>#{i.id}</a>
                  </td>
                  <td>{i.type}</td>
                  <td class="url">{listed(i, 'x-host-field')}</td>
                  <td>{listed(i, 'x-name-field')}</td>
                  <td>
                    {i.autoBootstrap === undefined ? (
                      <span class="muted" title="this type has nothing to set up on a remote platform">
                        none
                      </span>
                    ) : i.autoBootstrap ? (
                      'automatic'
                    ) : (
                      'manual'
                    )}
                  </td>
                  <td>
                    <StatusBadge status={i.status} reason={failureReason(i)} />
                  </td>
                  <td>
                    <LastCheck item={i} />
                  </td>
                  <td>{new Date(i.updatedAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
