/**
 * A copy of `object` with one field set (kept in place if present, else last), like `{ ...object, [key]: value }`.
 * A field it has: a spread copies the object's shape at once, two to four times faster than
 * Object.assign. A new field: Object.assign, as a key added to a spread's copy (or in the same
 * literal) takes V8 11's slow path, ten times slower; but Object.assign sets the copy's prototype
 * from a client's own `__proto__` key instead of copying it (a re-serialised body would go
 * upstream without it), so such a body is spread.
 */
export function withField<T extends object>(object: T, key: string, value: unknown): T {
  const copy = (Object.hasOwn(object, key) || Object.hasOwn(object, '__proto__') ? { ...object } : Object.assign({}, object)) as Record<string, unknown>;
  copy[key] = value;
  return copy as T;
}

/** Sets an own field, a client's `__proto__` key too (as a field: a plain assignment would set the object's prototype). */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}
