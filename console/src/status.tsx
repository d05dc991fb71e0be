/** Integration status badges: every status, the error ones with their reason. */
const TONE: Record<string, string> = {
  enabled: 'ok',
  creating: 'busy',
  editing: 'busy',
  deleting: 'busy',
  deleted: 'muted',
  disabled: 'muted',
};

/** Statuses of an operation still under way: screens keep polling while any is shown. */
const MOVING = new Set(['creating', 'editing', 'deleting']);
export const isMoving = (status: string): boolean => MOVING.has(status);

export function StatusBadge({ status, reason }: { status: string; reason?: string | null | undefined }) {
  const tone = TONE[status] ?? (status.toLowerCase().includes('error') ? 'bad' : 'muted');
  return (
    <span class={`badge ${tone}`} title={reason ?? undefined}>
      {status}
      {reason ? <span class="reason">: {reason}</span> : null}
    </span>
  );
}

/** Why the integration's last operation failed (the API's `statusMessage`), if it did. */
export function failureReason(record: {
  status: string;
  statusMessage?: string | undefined;
}): string | undefined {
  return record.status.endsWith('Error') ? record.statusMessage : undefined;
}
