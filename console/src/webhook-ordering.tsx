/**
 * Ordered delivery per key (ADR 0020; docs/webhooks.md, "Ordered delivery"): the switch for
 * creating and editing a webhook, and what the detail page says of it.
 */

/** The `ordered` checkbox, its one-line hint tied to it. */
export function OrderedSwitch({
  id,
  checked,
  onChange,
  error,
}: {
  id: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  error?: string | null | undefined;
}) {
  return (
    <div class="field">
      <div class="field check">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={`${id}-hint`}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
        />
        <label for={id}>Ordered delivery per key</label>
      </div>
      <p class="hint" id={`${id}-hint`}>
        Notifications with the same ordering key arrive one at a time, in order; a failing key holds only
        itself.
      </p>
      {error && <span class="field-error">{error}</span>}
    </div>
  );
}

/** The detail page's line for the setting. */
export const orderedText = (ordered: boolean): string =>
  ordered ? 'per ordering key (one at a time, in order)' : 'not ordered';
