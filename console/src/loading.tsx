/** A loading state: a spinner and what is loading, announced politely, marked busy. */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-busy="true">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}
