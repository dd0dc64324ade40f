/**
 * JSON text of a stored record. `JSON.stringify` recurses on the C++ stack and throws
 * `RangeError` on values nested a few thousand deep; a write of the store must never throw
 * on data the API accepted, so such a value is written by an iterative serializer with the
 * same output instead (JSON.parse reads any depth back).
 */
export function stringifyRecord(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyDeep(value);
  }
}

type Frame =
  | { kind: 'array'; items: unknown[]; index: number }
  | { kind: 'object'; value: Record<string, unknown>; keys: string[]; index: number; wrote: boolean };

/** What JSON.stringify would emit for a primitive, or undefined for "skip" (functions, symbols, undefined). */
function primitive(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(String(value));
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return value === null ? 'null' : undefined;
  }
}

/** JSON.stringify semantics (toJSON, skipped keys, null in arrays) with an explicit stack; cycles become null. */
export function stringifyDeep(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();

  /** Emits a value; returns true when it opened a container (pushed a frame). */
  const emit = (raw: unknown, inArray: boolean): boolean => {
    let value = raw;
    if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
      value = (value as { toJSON: () => unknown }).toJSON();
    }
    if (value === null || typeof value !== 'object') {
      out.push(primitive(value) ?? (inArray ? 'null' : 'null'));
      return false;
    }
    if (open.has(value)) {
      out.push('null');
      return false;
    }
    open.add(value);
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ kind: 'array', items: value, index: 0 });
    } else {
      out.push('{');
      stack.push({ kind: 'object', value: value as Record<string, unknown>, keys: Object.keys(value), index: 0, wrote: false });
    }
    return true;
  };

  /** Whether an object member is written at all (JSON.stringify drops undefined, functions, symbols). */
  const kept = (v: unknown): boolean => {
    if (v !== null && typeof v === 'object') return true;
    return primitive(v) !== undefined;
  };

  emit(root, false);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.kind === 'array') {
      if (frame.index >= frame.items.length) {
        out.push(']');
        open.delete(frame.items);
        stack.pop();
        continue;
      }
      if (frame.index > 0) out.push(',');
      const item = frame.items[frame.index++];
      emit(item, true);
      continue;
    }
    let member: string | undefined;
    while (frame.index < frame.keys.length) {
      const key = frame.keys[frame.index++];
      const v = frame.value[key];
      const hasToJSON = v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function';
      if (hasToJSON || kept(v)) {
        member = key;
        break;
      }
    }
    if (member === undefined) {
      out.push('}');
      open.delete(frame.value);
      stack.pop();
      continue;
    }
    if (frame.wrote) out.push(',');
    frame.wrote = true;
    out.push(JSON.stringify(member), ':');
    emit(frame.value[member], false);
  }
  return out.join('');
}
