/**
 * How often a byte comes in a stream's JSON text, roughly (lower: rarer): quotes, spaces and
 * JSON's punctuation most, then common lowercase letters, other letters and digits, then
 * everything else (uppercase, `-`, non-ASCII).
 */
function commonness(byte: number): number {
  if (byte === 34 || byte === 32 || byte === 58 || byte === 44 || byte === 123 || byte === 125) return 4; // " space : , { }
  if (byte >= 97 && byte <= 122) return COMMON_LETTERS.includes(byte) ? 3 : 2;
  if (byte >= 48 && byte <= 57) return 2;
  return 1;
}

const COMMON_LETTERS = Buffer.from('etaoinsrhlcd');

/**
 * A search of bytes for `pattern`, made once per pattern: `find(bytes, from)` answers what
 * `bytes.indexOf(pattern, from)` does. The native search starts from the pattern's first byte
 * and compares the rest at each place it comes; in JSON a `"` or an `s` comes every few bytes,
 * so this one starts from the pattern's rarest byte and checks the bytes before it (`"usage"` in
 * a 6.5 KB burst of Chat chunks: ~6.6 µs from its `"`, ~0.8 µs from a letter).
 */
export function bytesFinder(pattern: string): (bytes: Buffer, from?: number) => number {
  const whole = Buffer.from(pattern);
  let anchor = 0;
  for (let i = 1; i < whole.length; i += 1) {
    if (commonness(whole[i]) < commonness(whole[anchor])) anchor = i;
  }
  if (anchor === 0) return (bytes, from = 0) => bytes.indexOf(whole, from);
  const rest = whole.subarray(anchor);
  return (bytes, from = 0) => {
    let at = bytes.indexOf(rest, from + anchor);
    while (at !== -1) {
      const start = at - anchor;
      let i = 0;
      while (i < anchor && bytes[start + i] === whole[i]) i += 1;
      if (i === anchor) return start;
      at = bytes.indexOf(rest, at + 1);
    }
    return -1;
  };
}
