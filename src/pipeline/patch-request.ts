import { GatewayError } from '../errors/index.ts';
import type { ChatCall, ProviderInstance, RequestPatch, RequestPatchContext } from '../plugin-kit/index.ts';
import { patchJsonFields } from '../util/index.ts';

type Call = Omit<ChatCall, 'signal'>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A patch as a plugin returned it, checked: a plain-JS plugin gets a clear error, never a silently dropped edit. */
function checkedPatch(providerId: string, patch: unknown): RequestPatch {
  const set = isPlainObject(patch) ? patch.set : undefined;
  const remove = isPlainObject(patch) ? patch.remove : undefined;
  const valid = isPlainObject(patch) && (set === undefined || isPlainObject(set)) && (remove === undefined || (Array.isArray(remove) && remove.every((k) => typeof k === 'string')));
  if (!valid) throw new GatewayError('internal_error', `The provider '${providerId}' returned a request patch that is not { set?: object, remove?: string[] }.`);
  return patch as RequestPatch;
}

/**
 * The call with the provider's `patchRequest` applied to both its bodies: the bytes sent keep
 * every field the patch does not name (passthrough stays byte-exact elsewhere), the parsed body
 * agrees with them. The call itself when the provider has no patch or returns none.
 */
export function patchCall<C extends Call>(instance: ProviderInstance, providerId: string, purpose: RequestPatchContext['purpose'], call: C): C {
  if (!instance.patchRequest) return call;
  const returned = instance.patchRequest({ purpose, format: call.format, model: call.model, stream: call.stream, body: call.body });
  if (returned === undefined) return call;
  const patch = checkedPatch(providerId, returned);
  const body = { ...call.body };
  for (const key of patch.remove ?? []) delete body[key];
  for (const [key, value] of Object.entries(patch.set ?? {})) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  const rawBody = patchJsonFields(call.rawBody, patch.set, patch.remove) ?? JSON.stringify(body);
  return { ...call, body, rawBody };
}
