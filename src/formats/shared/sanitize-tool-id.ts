const SAFE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Makes a tool-call id acceptable to Anthropic (`^[a-zA-Z0-9_-]+$`). Deterministic, so a
 * foreign id such as `functions.get_weather:0` maps to the same safe id on the `tool_use`
 * and on its `tool_result`. Safe ids are kept as they are; changed ids get a hash of the
 * original so two ids that differ only in unsafe characters stay distinct.
 */
export function sanitizeToolId(id: string): string {
  if (SAFE_ID.test(id)) return id;
  const base = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48);
  return `${base || 'tool'}_${fnv1a(id)}`;
}

/**
 * A tool name every upstream format takes (letters, digits, `_`, `-`; a letter or `_` first, as
 * Gemini wants) in at most `maxLength` characters (≥ 10): the name's head, `_` and a hash of the
 * whole name. Deterministic and stateless, so every turn of a conversation maps a name the same
 * way, and two names with the same head stay distinct.
 */
export function shortToolName(name: string, maxLength: number): string {
  const base = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  const head = /^[a-zA-Z_]/.test(base) ? base : `_${base}`;
  return `${head.slice(0, maxLength - 9)}_${fnv1a(name)}`;
}

/** 32-bit FNV-1a as 8 hex digits: tiny, fast, stable across runs. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}
