/**
 * Rewrites the top-level `model` of a JSON body without re-serialising it, so a
 * same-format request goes upstream byte for byte apart from the model id. Falls back
 * to undefined (the caller re-serialises) when the key is not found exactly once.
 */
export function replaceModelInRaw(raw: string, from: string, to: string): string | undefined {
  if (from === to) return raw;
  const needle = JSON.stringify(from);
  const pattern = new RegExp(`"model"\\s*:\\s*${escapeRegExp(needle)}`, 'g');
  const matches = [...raw.matchAll(pattern)];
  if (matches.length !== 1) return undefined;
  const match = matches[0];
  const start = match.index;
  return raw.slice(0, start) + `"model":${JSON.stringify(to)}` + raw.slice(start + match[0].length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
