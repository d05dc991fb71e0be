/**
 * The event catalog: every notification type the signed-in user may subscribe to, grouped as
 * the type picker groups them, each with what triggers it and an example of the body a receiver
 * gets. Built into the console from shared/notifications/catalog.ts and examples.ts (the same
 * source the API validates subscriptions against), so it needs no request and cannot disagree
 * with the build it ships in.
 */
import { useState } from 'preact/hooks';
import { notificationCatalog } from '../../../shared/notifications/catalog';
import { examplePayload } from '../../../shared/notifications/examples';
import { subscribableGroups } from '../webhook-types';

export function EventCatalog() {
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const groups = subscribableGroups()
    .map(([label, names]) => {
      const shown = names.filter(
        (n) =>
          !needle ||
          n.toLowerCase().includes(needle) ||
          notificationCatalog[n].trigger.toLowerCase().includes(needle),
      );
      return [label, shown] as const;
    })
    .filter(([, names]) => names.length > 0);
  return (
    <section class="catalog">
      <h1>Event catalogue</h1>
      <p>
        The notification types your webhooks can subscribe to. Each delivery is a signed POST (Standard
        Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
        <code>webhook-signature</code>) whose JSON body looks like the example (example values).
      </p>
      <div class="filters">
        <label>
          Find a type{' '}
          <input
            type="search"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {groups.map(([label, names]) => (
        <section key={label} aria-labelledby={`group-${label}`}>
          <h2 id={`group-${label}`}>
            {label} ({names.length})
          </h2>
          {names.map((name) => (
            <details key={name} class="event" id={`event-${name}`}>
              <summary>
                <code>{name}</code> — {notificationCatalog[name].trigger}
              </summary>
              <pre>{JSON.stringify(examplePayload(name), null, 2)}</pre>
            </details>
          ))}
        </section>
      ))}
    </section>
  );
}
