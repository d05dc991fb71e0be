/**
 * The notification-type picker, grouped by the catalog's classification (system events and the
 * wildcard for admins only; the API refuses them to others anyway), for creating and editing a
 * webhook.
 */
import {
  ALL_NOTIFICATIONS,
  NOTIFICATION_NAMES,
  type NotificationName,
  notificationCatalog,
  requiresAdmin,
} from '../../shared/notifications/catalog';
import { isAdmin } from './session';

/** The names the signed-in user may subscribe to, by group label (the catalog page's order too). */
export function subscribableGroups(): [string, NotificationName[]][] {
  const admin = isAdmin();
  const groups = new Map<string, NotificationName[]>();
  for (const name of NOTIFICATION_NAMES) {
    if (!admin && requiresAdmin(name)) continue;
    const label = notificationCatalog[name].class === 'system' ? 'System events' : 'Activity';
    groups.set(label, [...(groups.get(label) ?? []), name]);
  }
  return [...groups];
}

export function TypePicker({
  selected,
  onChange,
}: {
  selected: Set<string>;
  onChange: (s: Set<string>) => void;
}) {
  const toggle = (name: string) => {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    onChange(next);
  };
  return (
    <fieldset class="picker">
      <legend>Notification types</legend>
      {isAdmin() && (
        <label class="check">
          <input
            type="checkbox"
            checked={selected.has(ALL_NOTIFICATIONS)}
            onChange={() => toggle(ALL_NOTIFICATIONS)}
          />{' '}
          {ALL_NOTIFICATIONS}
        </label>
      )}
      {subscribableGroups().map(([label, names]) => (
        <fieldset key={label}>
          <legend>{label}</legend>
          <div class="grid">
            {names.map((name) => (
              <label class="check" key={name} title={notificationCatalog[name].trigger}>
                <input type="checkbox" checked={selected.has(name)} onChange={() => toggle(name)} /> {name}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
    </fieldset>
  );
}

/** The global switch: admins only (the API refuses `global` from anyone else). */
export function GlobalSwitch({
  id,
  checked,
  onChange,
}: {
  id: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  if (!isAdmin()) return null;
  return (
    <div class="field check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={id}>Global (receives every subscribed notification)</label>
    </div>
  );
}
