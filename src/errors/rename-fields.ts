import { GatewayError } from './gateway-error.ts';

/**
 * An error about a body the gateway derived from the client's (OpenAI's images body from Imagen's,
 * a wrapped body under `input.converse`), its fields named as the client's body has them:
 * `details.fields`, `missing` and `param`, and the message's names, quoted (`Invalid parameter
 * 'n'`) or leading (`messages[0].role: …`). `rename` gives undefined for a field it keeps.
 */
export function renameFields(error: GatewayError, rename: (field: string) => string | undefined): GatewayError {
  const details = error.details;
  if (!details) return error;
  const fields = typeof details.fields === 'object' && details.fields !== null ? (details.fields as Record<string, unknown>) : undefined;
  const missing = Array.isArray(details.missing) ? details.missing.filter((field): field is string => typeof field === 'string') : undefined;
  const param = typeof details.param === 'string' ? details.param : undefined;
  const names = new Map<string, string>();
  for (const field of [...Object.keys(fields ?? {}), ...(missing ?? []), ...(param === undefined ? [] : [param])]) {
    const renamed = rename(field);
    if (renamed !== undefined && renamed !== field) names.set(field, renamed);
  }
  if (names.size === 0) return error;
  const as = (field: string) => names.get(field) ?? field;
  let message = error.message;
  for (const [field, renamed] of names) {
    if (message.startsWith(`${field}:`)) message = `${renamed}${message.slice(field.length)}`;
    message = message.split(`'${field}'`).join(`'${renamed}'`);
  }
  return new GatewayError(error.code, message, {
    status: error.status,
    headers: error.headers,
    cause: error.cause,
    retryAfter: error.retryAfter,
    retryAfterMs: error.retryAfterMs,
    details: {
      ...details,
      ...(fields ? { fields: Object.fromEntries(Object.entries(fields).map(([field, problem]) => [as(field), problem])) } : {}),
      ...(missing ? { missing: missing.map(as) } : {}),
      ...(param === undefined ? {} : { param: as(param) }),
    },
  });
}
