// `-2024-08-06`, `-20250805`, and Vertex AI's `@20250929`.
const DATE_SUFFIX = /(?:-|@)(\d{4}-\d{2}-\d{2}|\d{8})$/;

/** A model id without a trailing release date (`gpt-4o-2024-08-06` → `gpt-4o`, `claude-opus-4-1-20250805` and `claude-opus-4-1@20250805` → `claude-opus-4-1`). */
export function stripDateSuffix(id: string): string {
  return id.replace(DATE_SUFFIX, '');
}

/**
 * An index of entries by id that also answers for dated and undated forms of an id: an exact
 * match first, then the same id without its date (the newest dated entry when several share it).
 */
export class ModelIdIndex<T> {
  private readonly exact = new Map<string, T>();
  private readonly undated = new Map<string, { key: string; value: T }>();

  constructor(entries: Iterable<[string, T]>) {
    for (const [key, value] of entries) {
      this.exact.set(key, value);
      const bare = stripDateSuffix(key);
      const seen = this.undated.get(bare);
      if (!seen || key > seen.key) this.undated.set(bare, { key, value });
    }
  }

  get(id: string): T | undefined {
    return this.exact.get(id) ?? this.undated.get(id)?.value ?? this.exact.get(stripDateSuffix(id));
  }
}
