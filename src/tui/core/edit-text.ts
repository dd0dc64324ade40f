/** Keys a text field reacts to (a subset of Ink's `Key`). */
export interface EditKeys {
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
  tab?: boolean;
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
}

export type EditResult = { kind: 'edit'; value: string } | { kind: 'submit'; value: string } | { kind: 'cancel' };

/**
 * One keypress applied to a single-line field (cursor always at the end: enough for names,
 * emails and numbers). Ctrl-U clears; pasted text arrives as one input, and a newline in it submits.
 */
export function editText(value: string, input: string, key: EditKeys): EditResult {
  if (key.escape) return { kind: 'cancel' };
  if (key.return) return { kind: 'submit', value };
  // Terminals send DEL (backspace) for the Backspace key, which Ink reports as `delete`.
  if (key.backspace || key.delete) return { kind: 'edit', value: [...value].slice(0, -1).join('') };
  if (key.ctrl && input === 'u') return { kind: 'edit', value: '' };
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return { kind: 'edit', value };
  // Text and Enter can arrive as one chunk (a fast typist, a paste, a pipe): the line ends at the first newline.
  const newline = input.search(/[\r\n]/);
  const printable = (newline >= 0 ? input.slice(0, newline) : input).replace(/[\u0000-\u001f\u007f]/g, '');
  return newline >= 0 ? { kind: 'submit', value: value + printable } : { kind: 'edit', value: value + printable };
}
