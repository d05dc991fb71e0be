/**
 * Success messages as toasts: `toast('Webhook created')` from anywhere; <Toasts /> (rendered once
 * by the app) shows them in a polite live region, so screen readers announce them too. Each
 * toast goes away after a few seconds or on Dismiss. Errors are not toasts: they stay next to
 * the action or field that caused them (errors.tsx).
 */
import { signal } from '@preact/signals';

interface Toast {
  id: number;
  message: string;
}

const SHOWN_MS = 6000;
const toasts = signal<Toast[]>([]);
let nextId = 1;

function dismiss(id: number): void {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

export function toast(message: string): void {
  const id = nextId++;
  toasts.value = [...toasts.value, { id, message }];
  window.setTimeout(() => dismiss(id), SHOWN_MS);
}

export function Toasts() {
  return (
    <section class="toasts" aria-label="Notifications" aria-live="polite">
      {toasts.value.map((t) => (
        <div class="toast" key={t.id}>
          <span>{t.message}</span>
          <button
            type="button"
            class="link"
            aria-label={`Dismiss: ${t.message}`}
            onClick={() => dismiss(t.id)}
          >
            Dismiss
          </button>
        </div>
      ))}
    </section>
  );
}
