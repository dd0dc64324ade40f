import { useCallback, useRef, useState } from 'react';
import { clampCursor, moveCursor, type CursorKeys } from './move-cursor.ts';

export interface Selection<T> {
  index: number;
  selected: T | undefined;
  /** Applies a navigation key; true when it moved (or could have moved) the cursor. */
  onKey(input: string, key: CursorKeys): boolean;
  /** Puts the cursor on the row with `id`, now or as soon as a reload brings it (a row just created). */
  select(id: string): void;
}

const NAV_INPUTS = new Set(['j', 'k', 'g', 'G']);

/**
 * A cursor over `rows` that follows the selected row's id across reloads, so a refresh that
 * adds or reorders rows does not move the operator's selection to another record. A change
 * of `resetKey` (rows of another page or filter) puts it back on the first row.
 */
export function useSelection<T>(rows: readonly T[], idOf: (row: T) => string, page = 10, resetKey?: string): Selection<T> {
  const [index, setIndex] = useState(0);
  const selectedId = useRef<string | undefined>(undefined);
  /** A row asked for by `select` that the rows may not hold yet. */
  const wanted = useRef<string | undefined>(undefined);
  // Other rows altogether (another page, another filter): the cursor starts at the top, decided in this render.
  const lastReset = useRef(resetKey);
  if (resetKey !== lastReset.current) {
    lastReset.current = resetKey;
    wanted.current = rows[0] ? idOf(rows[0]) : undefined;
  }
  let current = clampCursor(index, rows.length);
  const target = wanted.current ?? selectedId.current;
  if (target !== undefined && !(rows[current] && idOf(rows[current]) === target)) {
    const found = rows.findIndex((r) => idOf(r) === target);
    if (found >= 0) current = found;
  }
  const selected = rows[current];
  if (wanted.current !== undefined && selected && idOf(selected) === wanted.current) wanted.current = undefined;
  selectedId.current = selected ? idOf(selected) : undefined;

  const onKey = (input: string, key: CursorKeys): boolean => {
    const nav = key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.home || key.end || NAV_INPUTS.has(input);
    if (!nav) return false;
    const next = moveCursor(current, rows.length, input, key, page);
    wanted.current = undefined;
    selectedId.current = rows[next] ? idOf(rows[next]) : undefined;
    setIndex(next);
    return true;
  };
  const [, bump] = useState(0);
  const select = useCallback((id: string) => {
    wanted.current = id;
    bump((n) => n + 1);
  }, []);
  return { index: current, selected, onKey, select };
}
