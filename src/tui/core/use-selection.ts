import { useRef, useState } from 'react';
import { clampCursor, moveCursor, type CursorKeys } from './move-cursor.ts';

export interface Selection<T> {
  index: number;
  selected: T | undefined;
  /** Applies a navigation key; true when it moved (or could have moved) the cursor. */
  onKey(input: string, key: CursorKeys): boolean;
}

const NAV_INPUTS = new Set(['j', 'k', 'g', 'G']);

/**
 * A cursor over `rows` that follows the selected row's id across reloads, so a refresh that
 * adds or reorders rows does not move the operator's selection to another record.
 */
export function useSelection<T>(rows: readonly T[], idOf: (row: T) => string, page = 10): Selection<T> {
  const [index, setIndex] = useState(0);
  const selectedId = useRef<string | undefined>(undefined);
  let current = clampCursor(index, rows.length);
  if (selectedId.current !== undefined && rows[current] && idOf(rows[current]) !== selectedId.current) {
    const found = rows.findIndex((r) => idOf(r) === selectedId.current);
    if (found >= 0) current = found;
  }
  const selected = rows[current];
  selectedId.current = selected ? idOf(selected) : undefined;

  const onKey = (input: string, key: CursorKeys): boolean => {
    const nav = key.upArrow || key.downArrow || key.pageUp || key.pageDown || key.home || key.end || NAV_INPUTS.has(input);
    if (!nav) return false;
    const next = moveCursor(current, rows.length, input, key, page);
    selectedId.current = rows[next] ? idOf(rows[next]) : undefined;
    setIndex(next);
    return true;
  };
  return { index: current, selected, onKey };
}
