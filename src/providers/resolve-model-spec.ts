import { applyConfigEntry, mergeSpecLayers, ModelIdIndex, openCatalogProvider, type CatalogProvider } from '../catalog/index.ts';
import type { ModelEntry } from '../config/index.ts';
import type { ModelSpec, ProviderInstance, ProviderPlugin } from '../plugin-kit/index.ts';
import type { CatalogModel } from './types.ts';

const CHAT_DEFAULT_CAPS: ModelSpec['capabilities'] = ['streaming', 'function_calling'];

/** Everything a provider knows about model ids, lowest precedence first (the config comes on top). */
export interface ModelFacts {
  /** The bundled catalog's provider (genai-prices + models.dev), when the plugin names one. */
  bundled?: CatalogProvider;
  /** The plugin's `catalog.models`: facts the bundled catalog lacks. */
  plugin: ModelIdIndex<ModelSpec>;
  /** The plugin's `catalog.describe`: facts an id's shape says. */
  describe?: (modelId: string) => Partial<ModelSpec> | undefined;
  /** The plugin's `models` and the set-up instance's `models`. */
  served: ModelIdIndex<ModelSpec>;
}

/** Gathers a provider's model facts; the bundled catalog is imported only for plugins that name a catalog provider. */
export async function gatherModelFacts(plugin: ProviderPlugin<unknown>, instance: ProviderInstance, baseURL: string | undefined): Promise<ModelFacts> {
  const hint = plugin.catalog?.provider;
  return {
    bundled: hint ? await openCatalogProvider(hint, baseURL) : undefined,
    plugin: new ModelIdIndex((plugin.catalog?.models ?? []).map((m) => [m.id, m])),
    describe: plugin.catalog?.describe?.bind(plugin.catalog),
    served: new ModelIdIndex([...(plugin.models ?? []), ...(instance.models ?? [])].map((m) => [m.id, m])),
  };
}

/**
 * The full spec of a listed model: bundled catalog, then the plugin's catalog entries, then
 * the plugin's served models, then the config entry (which always wins). An id nobody knows
 * is a chat model with no price.
 */
export function resolveModelSpec(entry: ModelEntry, facts: ModelFacts): ModelSpec {
  const id = typeof entry === 'string' ? entry : entry.id;
  // `baseModel` says which model an id that names none is: the catalog's facts are that model's.
  const base = typeof entry === 'string' ? id : (entry.baseModel ?? id);
  const known = mergeSpecLayers(id, [facts.bundled?.find(base), facts.describe?.(base), facts.plugin.get(base), facts.served.get(id)]);
  if (typeof entry === 'string') return withDefaults(known);
  // `deployment` names the model upstream (the registry's upstreamId) and `baseModel` the model it is (CatalogModel.baseModel): neither is a fact of the model.
  const { deployment: _deployment, baseModel: _baseModel, ...given } = entry;
  return withDefaults(applyConfigEntry(known, given as Partial<ModelSpec>));
}

function withDefaults(spec: ModelSpec): ModelSpec {
  spec.type ??= 'chat';
  spec.capabilities ??= spec.type === 'chat' ? CHAT_DEFAULT_CAPS : [];
  return spec;
}

/** False when a model's capabilities are the defaults given to an id nobody described (catalog, plugin, config). */
export function hasKnownCapabilities(spec: ModelSpec): boolean {
  return spec.capabilities !== undefined && spec.capabilities !== CHAT_DEFAULT_CAPS;
}

/**
 * Which model a catalog entry is, for what the gateway knows by model id (OpenAI's reasoning
 * models, its own fields, Gemini 3's thinking levels): the config's `baseModel`, else the
 * gateway's id, never a `deployment` (an Azure deployment is only a name: `my-gpt5-prod`).
 */
export function baseModelOf(model: Pick<CatalogModel, 'baseModel' | 'spec'>): string {
  return model.baseModel ?? model.spec.id;
}
