/** Previous/next buttons and the range shown, for a list paged by offset with a total count. */
export function Pager({
  offset,
  pageSize,
  count,
  onOffset,
  labels = ['Previous', 'Next'],
}: {
  offset: number;
  pageSize: number;
  count: number;
  onOffset: (offset: number) => void;
  labels?: [string, string];
}) {
  return (
    <div class="actions">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - pageSize))}>
        {labels[0]}
      </button>
      <span>
        {count === 0 ? 0 : offset + 1}–{Math.min(offset + pageSize, count)} of {count}
      </span>
      <button type="button" disabled={offset + pageSize >= count} onClick={() => onOffset(offset + pageSize)}>
        {labels[1]}
      </button>
    </div>
  );
}
