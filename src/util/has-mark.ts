/**
 * Whether `value` carries `mark`, a `Symbol.for` key its class sets on every instance. Other
 * folders recognise our error classes by their mark through an `isX()` of the owning folder,
 * never by `instanceof`: a mark survives a second copy of the module (a bundle, a plugin's own
 * kit), a class identity does not (the way GatewayError is recognised).
 */
export function hasMark(value: unknown, mark: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[mark] === true;
}
