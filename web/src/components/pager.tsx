/** Previous / next over a server's pages. */
export function Pager({ page, hasMore, onPage, total, label }: { page: number; hasMore: boolean; onPage: (page: number) => void; total?: number; label: string }) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous</button>
      <span aria-live="polite">Page {page}{total !== undefined ? ` · ${total.toLocaleString()} in all` : ''}</span>
      <button type="button" className="secondary" disabled={!hasMore} onClick={() => onPage(page + 1)}>Next</button>
    </nav>
  );
}
