/** The Messages API version Vertex AI wants in the body of a Claude call. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/** Where the JSON string starting at `at` (a `"`) ends, one past its closing quote. */
function stringEnd(raw: string, at: number): number {
  let i = at + 1;
  while (i < raw.length) {
    const code = raw.charCodeAt(i);
    if (code === 92 /* \ */) i += 2;
    else if (code === 34 /* " */) return i + 1;
    else i += 1;
  }
  return -1;
}

/** One past the end of the JSON value starting at `at`. */
function valueEnd(raw: string, at: number): number {
  let depth = 0;
  let i = at;
  while (i < raw.length) {
    const code = raw.charCodeAt(i);
    if (code === 34) {
      i = stringEnd(raw, i);
      if (i === -1) return -1;
      if (depth === 0) return i;
      continue;
    }
    if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      if (depth === 0) return i;
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && (code === 44 || isSpace(code))) return i;
    i += 1;
  }
  return depth === 0 ? i : -1;
}

function skipSpace(raw: string, at: number): number {
  let i = at;
  while (i < raw.length && isSpace(raw.charCodeAt(i))) i += 1;
  return i;
}

/**
 * The top-level members of a JSON object text: each key's name and where the member starts
 * (its key) and ends (after its value). Undefined when the text is not one object.
 */
function members(raw: string): { open: number; list: Array<{ key: string; start: number; end: number }> } | undefined {
  const open = skipSpace(raw, 0);
  if (raw.charCodeAt(open) !== 123) return undefined;
  const list: Array<{ key: string; start: number; end: number }> = [];
  let i = skipSpace(raw, open + 1);
  if (raw.charCodeAt(i) === 125) return { open, list };
  for (;;) {
    if (raw.charCodeAt(i) !== 34) return undefined;
    const keyEnd = stringEnd(raw, i);
    if (keyEnd === -1) return undefined;
    const key = JSON.parse(raw.slice(i, keyEnd)) as string;
    const colon = skipSpace(raw, keyEnd);
    if (raw.charCodeAt(colon) !== 58) return undefined;
    const end = valueEnd(raw, skipSpace(raw, colon + 1));
    if (end === -1) return undefined;
    list.push({ key, start: i, end });
    i = skipSpace(raw, end);
    if (raw.charCodeAt(i) === 125) return { open, list };
    if (raw.charCodeAt(i) !== 44) return undefined;
    i = skipSpace(raw, i + 1);
  }
}

/**
 * A Messages body as Vertex AI takes it: no top-level `model` (it is in the URL) and
 * `anthropic_version` first (a client's own is kept). The text is edited in place, so every
 * other byte — thinking signatures, tool inputs, numbers as written — reaches Vertex as the
 * client sent it; undefined when the text is not one JSON object.
 */
export function patchClaudeBody(raw: string): string | undefined {
  const parsed = members(raw);
  if (!parsed) return undefined;
  let out = raw;
  // Back to front, so earlier offsets stay valid.
  const models = parsed.list.filter((m) => m.key === 'model').reverse();
  for (const member of models) {
    const index = parsed.list.indexOf(member);
    const next = parsed.list[index + 1];
    const previous = parsed.list[index - 1];
    // Cut the member with the comma that joins it to its neighbour.
    if (next) out = out.slice(0, member.start) + out.slice(next.start);
    else if (previous) out = out.slice(0, previous.end) + out.slice(member.end);
    else out = out.slice(0, member.start) + out.slice(member.end);
    parsed.list.splice(index, 1);
  }
  if (parsed.list.some((m) => m.key === 'anthropic_version')) return out;
  const version = `"anthropic_version":${JSON.stringify(VERTEX_ANTHROPIC_VERSION)}`;
  const insertAt = parsed.open + 1;
  return out.slice(0, insertAt) + version + (parsed.list.length > 0 ? ',' : '') + out.slice(insertAt);
}
