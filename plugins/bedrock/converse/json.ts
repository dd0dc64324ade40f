// Small readers for untrusted JSON (the plugin kit exposes no format internals).
export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function recordOf(value: unknown): Json {
  return isRecord(value) ? value : {};
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Tool arguments as an object: Converse sends `input` as JSON, the IR keeps JSON text. */
export function argumentsObject(text: string): Json {
  const value = parseJson(text || '{}');
  return isRecord(value) ? value : {};
}

let counter = 0;
/** An id for a response Converse does not name (its answers carry none). */
export function responseId(): string {
  counter = (counter + 1) % 1_000_000;
  return `bedrock-${Date.now().toString(36)}${counter.toString(36)}`;
}
