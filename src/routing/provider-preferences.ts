import { GatewayError } from '../errors/index.ts';
import type { ProviderPreferences } from '../formats/index.ts';
import type { RoutePlan } from './types.ts';

/** The most providers one list of the preferences is read up to (OpenRouter's lists are short; a long one of its slugs may name a gateway provider late). */
const MAX_NAMES = 256;
/** The longest provider name read. */
const MAX_NAME = 128;

/** A list of the `provider` object: its strings, lower-cased; undefined when it is not a list of any. */
function names(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const item of value.slice(0, MAX_NAMES)) if (typeof item === 'string' && item.length > 0 && item.length <= MAX_NAME) out.push(item.toLowerCase());
  return out.length > 0 ? out : undefined;
}

/**
 * The parts of OpenRouter's `provider` object the gateway's routing applies (`only`, `ignore`,
 * `order`, `allow_fallbacks`); undefined when it says none of them. Read leniently, as the field
 * was taken out before: what is not a list of names is left for an OpenRouter upstream to judge.
 */
export function readProviderPreferences(value: unknown): ProviderPreferences | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const object = value as Record<string, unknown>;
  const prefs: ProviderPreferences = {};
  const only = names(object.only);
  const ignore = names(object.ignore);
  const order = names(object.order);
  if (only) prefs.only = only;
  if (ignore) prefs.ignore = ignore;
  if (order) prefs.order = order;
  if (order && object.allow_fallbacks === false) prefs.allowFallbacks = false;
  return only || ignore || order ? prefs : undefined;
}

/**
 * A plan's candidates as OpenRouter's provider preferences say, by the gateway's provider ids
 * (`providers`, any case): `ignore` drops those providers; `only` keeps those (when it names at
 * least one of the gateway's providers: names it does not have are OpenRouter's slugs, left for an
 * OpenRouter upstream); `order` puts those first, in that order (the model's providers, and the
 * fallbacks apart), and with `allow_fallbacks: false` keeps only them. A plan left with no
 * candidate is a 404 naming the preferences, as OpenRouter answers one.
 */
export function applyProviderPreferences(plan: RoutePlan, prefs: ProviderPreferences, providers: Iterable<string>): RoutePlan {
  const known = new Set<string>();
  for (const id of providers) known.add(id.toLowerCase());
  const only = prefs.only?.some((name) => known.has(name)) ? new Set(prefs.only) : undefined;
  const ignore = new Set(prefs.ignore ?? []);
  const order = prefs.order?.some((name) => known.has(name)) ? prefs.order : undefined;
  const allowed = (model: RoutePlan['primary'][number]) => {
    const id = model.provider.id.toLowerCase();
    return !ignore.has(id) && (!only || only.has(id)) && (!order || prefs.allowFallbacks !== false || order.includes(id));
  };
  let primary = plan.primary.filter(allowed);
  let chain = plan.chain.filter(allowed);
  if (order) {
    // The named providers first, in the order named, then the rest as the plan had them: among the
    // requested model's providers, and among the fallbacks apart (a fallback model never goes before
    // the model asked for, as on OpenRouter, which orders a model's providers and tries `models` after).
    const rank = (model: RoutePlan['primary'][number]) => {
      const at = order.indexOf(model.provider.id.toLowerCase());
      return at === -1 ? order.length : at;
    };
    // Array.prototype.sort is stable: the unnamed keep the plan's order.
    primary = primary.sort((a, b) => rank(a) - rank(b));
    chain = chain.sort((a, b) => rank(a) - rank(b));
  }
  if (primary.length === 0 && chain.length === 0) {
    const said = Object.entries({ only: prefs.only, ignore: prefs.ignore, order: prefs.allowFallbacks === false ? prefs.order : undefined })
      .filter(([, list]) => list)
      .map(([key, list]) => `${key}: ${list!.join(', ')}`)
      .join('; ');
    const serving = [...new Set(plan.primary.concat(plan.chain).map((model) => model.provider.id))].join(', ');
    throw new GatewayError('model_not_found', `No provider of the model '${plan.requested}' is allowed by the request's provider preferences (${said}); it is served by ${serving}.`, {
      details: { model: plan.requested, param: 'provider' },
    });
  }
  if (primary.length === 0) return { ...plan, primary: chain, chain: [] };
  return { ...plan, primary, chain };
}
