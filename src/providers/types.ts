import type { WireFormat } from '../ir/index.ts';
import type { HostedToolsPolicy, ModelSpec, PromptCacheMode, ProviderInstance, ProviderPlugin, UpstreamTimeouts } from '../plugin-kit/index.ts';

/** A configured, set-up provider. */
export interface Provider {
  id: string;
  plugin: ProviderPlugin<unknown>;
  instance: ProviderInstance;
  /** Formats the upstream speaks natively (config `formats` over the plugin's). */
  formats: WireFormat[];
  timeouts: UpstreamTimeouts;
  priority: number;
  weight: number;
  /** Config `promptCache` (default 'auto'); a model's own setting wins. */
  promptCache?: PromptCacheMode;
  /** Config `hostedTools` (default 'drop'); a model's own setting wins. */
  hostedTools?: HostedToolsPolicy;
  /** Config `batches`: 'native' runs a batch through the plugin's `batches` capability (default 'emulated'). */
  batches?: 'native' | 'emulated';
  /** Config `openRouterFields`: OpenRouter's own Chat fields go 'forward' as written (an OpenRouter upstream) or 'strip'ped (any other). */
  openRouterFields?: 'forward' | 'strip';
  /** The largest request body the upstream takes (config `maxRequestBytes` over the plugin's); none: no cap of its own. */
  maxRequestBytes?: number;
  /** True when the config lists `*`: any model id may be pinned to this provider. */
  acceptsAnyModel: boolean;
  /** The full spec of a model id this provider may serve (catalog, plugin facts); used for `*` providers. */
  describe?: (modelId: string) => ModelSpec;
}

/** One model of one provider, as the catalog and the router see it. */
export interface CatalogModel {
  /** `provider/model`, the id clients use to pin. */
  id: string;
  provider: Provider;
  /** The id the upstream knows. */
  upstreamId: string;
  /** The config entry's `baseModel`: the model this entry is when its id does not say so (read through baseModelOf). */
  baseModel?: string;
  spec: ModelSpec;
  formats: WireFormat[];
}
