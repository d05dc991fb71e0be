/**
 * Confirmation before a destructive action: `if (await confirmAction({...})) remove()`. One
 * <ConfirmHost /> (rendered once by the app) shows a modal <dialog>: focus moves into it and
 * stays there, Escape or Cancel answers no, and focus returns to the button that asked.
 * Cancel has the focus first, so Enter alone never destroys anything.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';

export interface Confirmation {
  /** The question, e.g. "Delete webhook “orders”?" */
  title: string;
  /** What happens, in a sentence or two. */
  message: string;
  /** The destructive button's label, e.g. "Delete webhook". */
  confirmLabel: string;
}

const pending = signal<(Confirmation & { answer: (ok: boolean) => void }) | null>(null);

export function confirmAction(confirmation: Confirmation): Promise<boolean> {
  pending.value?.answer(false);
  return new Promise((resolve) => {
    pending.value = { ...confirmation, answer: resolve };
  });
}

export function ConfirmHost() {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const current = pending.value;
  useEffect(() => {
    if (!current || !dialog.current) return;
    const opener = document.activeElement as HTMLElement | null;
    dialog.current.showModal();
    cancel.current?.focus();
    return () => opener?.focus?.();
  }, [current]);
  const close = (ok: boolean) => {
    if (!current) return;
    pending.value = null;
    dialog.current?.close();
    current.answer(ok);
  };
  if (!current) return null;
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-message"
      onCancel={(e) => {
        e.preventDefault();
        close(false);
      }}
    >
      <h2 id="confirm-title">{current.title}</h2>
      <p id="confirm-message">{current.message}</p>
      <div class="actions">
        <button type="button" ref={cancel} onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => close(true)}>
          {current.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
