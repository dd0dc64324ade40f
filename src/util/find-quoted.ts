/**
 * A search for a pattern that begins with `"` (a JSON key or string such as `"usage"`) in
 * JSON text, made once per pattern: `find(text, from)` answers what `text.indexOf(pattern,
 * from)` does. V8 starts its substring search from the pattern's first character, and in
 * JSON a `"` comes every few characters, so `indexOf('"usage"')` on a 270-character chunk
 * costs about 500 ns on Node 20; searching from the next character and checking the quote
 * before it costs about 85 ns. Stream relays run several of these on every record.
 */
export function quotedFinder(pattern: string): (text: string, from?: number) => number {
  if (pattern.length < 2 || pattern.charCodeAt(0) !== 34 /* " */) return (text, from = 0) => text.indexOf(pattern, from);
  const rest = pattern.slice(1);
  return (text, from = 0) => {
    let at = text.indexOf(rest, from + 1);
    while (at !== -1 && text.charCodeAt(at - 1) !== 34) at = text.indexOf(rest, at + 1);
    return at === -1 ? -1 : at - 1;
  };
}

/** `quotedFinder` for bytes (a chunk as received): `find(bytes, from)` answers what `bytes.indexOf(pattern, from)` does. */
export function quotedByteFinder(pattern: string): (bytes: Buffer, from?: number) => number {
  const whole = Buffer.from(pattern);
  if (pattern.length < 2 || pattern.charCodeAt(0) !== 34 /* " */) return (bytes, from = 0) => bytes.indexOf(whole, from);
  const rest = whole.subarray(1);
  return (bytes, from = 0) => {
    let at = bytes.indexOf(rest, from + 1);
    while (at !== -1 && bytes[at - 1] !== 34) at = bytes.indexOf(rest, at + 1);
    return at === -1 ? -1 : at - 1;
  };
}
