export interface ColumnSpec {
  header: string;
  /** Never wider than this (long ids, prompts). */
  max?: number;
  /** Never narrower than this when shrinking to fit; defaults to the header's width. */
  min?: number;
  align?: 'left' | 'right';
}

/** Display width of plain text (code points; the tables hold ids, emails and numbers). */
export function textWidth(text: string): number {
  return [...text].length;
}

/** Lines `text` takes wrapped at `width` columns as Ink wraps it: at spaces, a word wider than a line broken. */
export function wrappedLines(text: string, width: number): number {
  if (!(width > 0) || width === Infinity) return 1;
  let lines = 1;
  let used = 0;
  for (const word of text.split(' ')) {
    let w = textWidth(word);
    const need = used === 0 ? w : used + 1 + w;
    if (need <= width) {
      used = need;
      continue;
    }
    if (used > 0) lines += 1;
    for (; w > width; w -= width) lines += 1;
    used = w;
  }
  return lines;
}

/** Cuts `text` to `width` columns, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  if (width <= 1) return chars.slice(0, width).join('');
  return chars.slice(0, width - 1).join('') + '…';
}

/** Column widths for `rows` within `width` terminal columns: natural widths, then the widest columns give way first. */
export function fitColumns(specs: ColumnSpec[], rows: string[][], width: number, gap = 2): number[] {
  const widths = specs.map((spec, i) => {
    const natural = Math.max(textWidth(spec.header), ...rows.map((r) => textWidth(r[i] ?? '')));
    return spec.max === undefined ? natural : Math.min(natural, Math.max(spec.max, textWidth(spec.header)));
  });
  const floors = specs.map((spec, i) => Math.min(widths[i], spec.min ?? textWidth(spec.header)));
  let excess = widths.reduce((a, b) => a + b, 0) + gap * Math.max(0, specs.length - 1) - width;
  while (excess > 0) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (widths[i] > floors[i] && (widest < 0 || widths[i] > widths[widest])) widest = i;
    }
    if (widest < 0) break;
    widths[widest] -= 1;
    excess -= 1;
  }
  return widths;
}

/** One table line: cells padded (or cut) to their widths. */
export function layoutRow(cells: string[], widths: number[], specs: ColumnSpec[], gap = 2): string {
  return cells
    .map((cell, i) => {
      const text = truncate(cell, widths[i]);
      const pad = ' '.repeat(Math.max(0, widths[i] - textWidth(text)));
      return specs[i]?.align === 'right' ? pad + text : text + pad;
    })
    .join(' '.repeat(gap));
}
