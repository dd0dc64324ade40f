/** Keys that move a list cursor (a subset of Ink's `Key`, so the core stays UI-free). */
export interface CursorKeys {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
}

/** The new cursor after a key (arrows, j/k, page, home/end), clamped to the list; `page` rows per page. */
export function moveCursor(cursor: number, length: number, input: string, key: CursorKeys, page = 10): number {
  if (length === 0) return 0;
  let next = cursor;
  if (key.upArrow || input === 'k') next -= 1;
  else if (key.downArrow || input === 'j') next += 1;
  else if (key.pageUp) next -= page;
  else if (key.pageDown) next += page;
  else if (key.home || input === 'g') next = 0;
  else if (key.end || input === 'G') next = length - 1;
  return clampCursor(next, length);
}

export function clampCursor(cursor: number, length: number): number {
  return Math.max(0, Math.min(cursor, length - 1));
}

/** The first row of a `height`-row window that keeps `cursor` visible, scrolling as little as possible. */
export function windowStart(cursor: number, length: number, height: number, previous = 0): number {
  if (length <= height) return 0;
  let start = Math.min(previous, length - height);
  if (cursor < start) start = cursor;
  if (cursor >= start + height) start = cursor - height + 1;
  return Math.max(0, start);
}
