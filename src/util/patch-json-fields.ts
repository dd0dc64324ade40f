function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/** The index just past the JSON string that opens at `at` (a `"`), or -1. */
function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 92 /* \ */) i += 1;
    else if (code === 34 /* " */) return i + 1;
  }
  return -1;
}

/** The index just past the JSON value that starts at `at`, or -1. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 34) return skipString(text, at);
  if (first !== 123 /* { */ && first !== 91 /* [ */) {
    let i = at;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 44 /* , */ || code === 125 /* } */ || code === 93 /* ] */ || isSpace(code)) break;
      i += 1;
    }
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 34) {
      i = skipString(text, i) - 1;
      if (i < 0) return -1;
    } else if (code === 123 || code === 91) depth += 1;
    else if (code === 125 || code === 93) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

interface Member {
  key: string;
  /** The member's text from its key to the end of its value. */
  start: number;
  valueStart: number;
  end: number;
}

/** The top-level members of a JSON object text, or undefined when the text is not one. */
function topLevelMembers(text: string): Member[] | undefined {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== 123) return undefined;
  at = skipSpace(text, at + 1);
  const members: Member[] = [];
  if (text.charCodeAt(at) === 125) return skipSpace(text, at + 1) === text.length ? members : undefined;
  for (;;) {
    if (text.charCodeAt(at) !== 34) return undefined;
    const keyEnd = skipString(text, at);
    if (keyEnd === -1) return undefined;
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    let valueStart = skipSpace(text, keyEnd);
    if (text.charCodeAt(valueStart) !== 58 /* : */) return undefined;
    valueStart = skipSpace(text, valueStart + 1);
    const end = skipValue(text, valueStart);
    if (end === -1) return undefined;
    members.push({ key, start: at, valueStart, end });
    at = skipSpace(text, end);
    const code = text.charCodeAt(at);
    if (code === 125) return skipSpace(text, at + 1) === text.length ? members : undefined;
    if (code !== 44) return undefined;
    at = skipSpace(text, at + 1);
  }
}

/**
 * Sets and removes top-level fields of a JSON object text without re-serialising the rest:
 * every other member keeps its bytes (opaque signatures, number spellings, escapes). A set
 * field is replaced in place, else added last (a field both removed and set: added last); a
 * field set to `undefined` is removed. Undefined when the text is not a JSON object.
 */
export function patchJsonFields(text: string, set: Record<string, unknown> = {}, remove: readonly string[] = []): string | undefined {
  const members = topLevelMembers(text);
  if (!members) return undefined;
  const kept: string[] = [];
  const separators: string[] = [];
  const seen = new Set<string>();
  members.forEach((member, i) => {
    if (remove.includes(member.key) || seen.has(member.key)) return;
    const replaced = Object.hasOwn(set, member.key);
    if (replaced) seen.add(member.key);
    if (replaced && set[member.key] === undefined) return;
    kept.push(replaced ? text.slice(member.start, member.valueStart) + JSON.stringify(set[member.key]) : text.slice(member.start, member.end));
    // The bytes that followed it (`, ` or `,\n  `), used when another member comes after it.
    separators.push(i + 1 < members.length ? text.slice(member.end, members[i + 1].start) : ',');
  });
  for (const [key, value] of Object.entries(set)) {
    if (seen.has(key) || value === undefined) continue;
    kept.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
    separators.push(',');
  }
  const open = members.length > 0 ? text.slice(0, members[0].start) : '{';
  const close = members.length > 0 ? text.slice(members.at(-1)!.end) : '}';
  return open + kept.map((part, i) => (i + 1 < kept.length ? part + separators[i] : part)).join('') + close;
}
