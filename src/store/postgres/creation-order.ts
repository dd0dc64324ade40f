/**
 * A page in creation order with OpenAI's `after` cursor: newest first (`desc`: created_at,
 * then the later-created first) or oldest first (`asc`), rows past the anchor row under the
 * same filter; an unknown anchor gives an empty page.
 * `filter` uses $1… for `values`; the SQL returns one more row than asked to say `hasMore`.
 */
export function creationOrderPage(table: string, columns: string, filter: string[], values: unknown[], after: string | undefined, limit: number, order: 'asc' | 'desc' = 'desc'): { text: string; values: unknown[] } {
  const params = [...values];
  const where = [...filter];
  if (after !== undefined) {
    params.push(after);
    const anchor = `(select created_at, seq from ${table} where id = $${params.length}${filter.length > 0 ? ` and ${filter.join(' and ')}` : ''})`;
    where.push(`(created_at, seq) ${order === 'desc' ? '<' : '>'} ${anchor}`);
  }
  params.push(limit + 1);
  const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
  return { text: `select ${columns} from ${table} ${clause} order by created_at ${order}, seq ${order} limit $${params.length}`, values: params };
}
