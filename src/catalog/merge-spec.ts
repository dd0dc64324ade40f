import type { ModelSpec } from '../plugin-kit/index.ts';

/** Spec fields merged key by key rather than replaced. */
type Layer = Partial<ModelSpec> | undefined;

/**
 * Lays spec layers over each other, lowest first: a later layer's field replaces an earlier
 * one's, except `pricing`, which is merged field by field (a plugin adds a per-image price to
 * the catalog's token prices). The config layer goes through `applyConfigEntry` instead.
 */
export function mergeSpecLayers(id: string, layers: Layer[]): ModelSpec {
  const out: ModelSpec = { id };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined || key === 'id') continue;
      if (key === 'pricing') out.pricing = { ...out.pricing, ...(value as ModelSpec['pricing']) };
      else (out as unknown as Record<string, unknown>)[key] = value;
    }
  }
  return out;
}

/**
 * The config's entry over everything the catalog and plugin know: its fields win one by one,
 * and its `pricing`, when given, replaces the known prices as a whole (what the operator typed
 * is what is billed; a field left out is not charged).
 */
export function applyConfigEntry(known: ModelSpec, entry: Partial<ModelSpec>): ModelSpec {
  const out = mergeSpecLayers(known.id, [known, { ...entry, pricing: undefined }]);
  if (entry.pricing) out.pricing = { ...entry.pricing };
  return out;
}
