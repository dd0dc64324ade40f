import { describeUnknownKey, providerConfigSchema, suggestKey, type GatewayConfig, type ModelEntry, type ProviderConfig } from '../config/index.ts';
import { GatewayError } from '../errors/index.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory, type ConnectionStats } from '../upstream/index.ts';
import type { ModelSpec, PluginLogger, ProviderPlugin } from '../plugin-kit/index.ts';
import { rememberSecret, rememberSecretHeader } from '../util/index.ts';
import { resolveModelSpec, gatherModelFacts } from './resolve-model-spec.ts';
import { loadPlugin, PluginLoadError, supportedFormatsOf } from './load-plugin.ts';
import type { CatalogModel, Provider } from './types.ts';

const WILDCARD_CACHE_SIZE = 1024;

/** The models a requested id may go to, and whether the id pins one provider. */
export interface Resolution {
  readonly pinned: boolean;
  readonly candidates: readonly CatalogModel[];
}

/** A config error when `formats` names a format the plugin does not speak (the host calls a plugin only with its own). */
function checkFormats(where: string, plugin: ProviderPlugin<unknown>, formats: readonly string[] | undefined): void {
  if (!formats) return;
  const supported = supportedFormatsOf(plugin);
  const foreign = formats.find((format) => !supported.includes(format));
  if (foreign !== undefined) throw new PluginLoadError(`${where}: the plugin '${plugin.name}' does not speak '${foreign}' (it speaks ${supported.join(', ')})`);
}

/** A base URL on OpenRouter's host (openrouter.ai/api/v1): its own Chat fields are OpenRouter's to read. */
function isOpenRouterURL(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  try {
    const host = new URL(baseURL).hostname.toLowerCase();
    return host === 'openrouter.ai' || host.endsWith('.openrouter.ai');
  } catch {
    return false;
  }
}

/** The set-up providers and the catalog of the models they serve. */
export class ProviderRegistry {
  readonly providers = new Map<string, Provider>();
  readonly models: CatalogModel[] = [];
  private readonly byFullId = new Map<string, CatalogModel>();
  /** What `resolve` answers, made once per id (the request path asks several times per request). */
  private readonly pinnedById = new Map<string, Resolution>();
  private readonly byBareId = new Map<string, Resolution & { candidates: CatalogModel[] }>();
  private readonly wildcards = new Map<string, Resolution>();
  private readonly http = new Map<string, UndiciHttpFactory>();

  /**
   * Loads every enabled provider's plugin (dynamic import) and sets it up. `source` names the
   * config file in errors (e.g. an unknown key in a provider entry).
   */
  static async create(config: GatewayConfig, options: { configDir: string; log: PluginLogger; source?: string }): Promise<ProviderRegistry> {
    const registry = new ProviderRegistry();
    for (const [id, providerConfig] of Object.entries(config.providers)) {
      if (providerConfig.enabled === false) continue;
      const plugin = await loadPlugin(id, providerConfig.plugin, options.configDir);
      await registry.add(id, plugin, providerConfig, options.log, options.source ?? 'config');
    }
    return registry;
  }

  private async add(id: string, plugin: ProviderPlugin<unknown>, cfg: ProviderConfig, log: PluginLogger, source: string): Promise<void> {
    const timeouts = { ...DEFAULT_TIMEOUTS, ...cfg.timeouts };
    const { plugin: _p, baseURL, apiKey, headers, models, formats, timeouts: _t, enabled: _e, priority, weight, promptCache, hostedTools, batches, maxConnections, maxQueued, queueTimeoutMs, openRouterFields, maxRequestBytes, ...rest } = cfg;
    checkProviderKeys(id, plugin, Object.keys(rest), source);
    let options: unknown = rest;
    try {
      if (plugin.options) options = plugin.options.parse(rest);
    } catch (error) {
      const message = (error as { issues?: Array<{ path: unknown[]; message: string }> }).issues?.[0];
      const detail = message ? `${message.path.join('.')}: ${message.message}` : (error as Error).message.split('\n')[0];
      throw new PluginLoadError(`provider '${id}': invalid options for plugin '${plugin.name}': ${detail}`);
    }
    // Upstream messages that quote these back are redacted wherever they leave the gateway.
    rememberSecret(apiKey);
    for (const value of Object.values(headers ?? {})) rememberSecretHeader(value);
    const http = new UndiciHttpFactory(timeouts, definedOnly({ maxConnections, maxQueued, queueTimeoutMs }), id);
    this.http.set(id, http);
    let instance;
    try {
      instance = await plugin.setup({ id, baseURL, apiKey, headers: headers ?? {}, timeouts, options, http, log });
    } catch (error) {
      throw new PluginLoadError(`provider '${id}': plugin '${plugin.name}' failed to set up: ${(error as Error).message.split('\n')[0]}`);
    }
    if (batches === 'native' && !instance.batches) {
      await instance.close?.().catch(() => undefined);
      throw new PluginLoadError(`${source}: providers.${id}.batches is 'native', but the plugin '${plugin.name}' has no native batch API; use 'emulated' (the default)`);
    }
    try {
      checkFormats(`${source}: providers.${id}.formats`, plugin, formats);
      for (const entry of models ?? []) if (typeof entry === 'object') checkFormats(`${source}: providers.${id}.models '${entry.id}' formats`, plugin, entry.formats);
    } catch (error) {
      await instance.close?.().catch(() => undefined);
      throw error;
    }
    const facts = await gatherModelFacts(plugin, instance, baseURL);
    const provider: Provider = {
      id,
      plugin,
      instance,
      formats: formats ?? plugin.formats,
      timeouts,
      priority: priority ?? 0,
      weight: weight ?? 1,
      promptCache: promptCache ?? 'auto',
      hostedTools: hostedTools ?? 'drop',
      batches: batches ?? 'emulated',
      openRouterFields: openRouterFields ?? (isOpenRouterURL(baseURL) ? 'forward' : 'strip'),
      acceptsAnyModel: (models ?? []).some((m) => m === '*'),
      maxRequestBytes: maxRequestBytes ?? plugin.maxRequestBytes,
      describe: (modelId) => resolveModelSpec(modelId, facts),
    };
    this.providers.set(id, provider);
    const entries: ModelEntry[] = models ?? [...(plugin.models ?? []), ...(instance.models ?? [])].map((m) => m.id);
    for (const entry of entries) if (entry !== '*') this.addModel(provider, resolveModelSpec(entry, facts), typeof entry === 'object' ? entry : undefined);
    if (!instance.chat) warnChatless(provider, this.models, log);
  }

  /** `deployment`: the name the upstream knows the model by, when the config gives one (else its id); `baseModel`: the model it is. */
  private addModel(provider: Provider, spec: ModelSpec, entry?: { deployment?: string; baseModel?: string }): void {
    const model: CatalogModel = {
      id: `${provider.id}/${spec.id}`,
      provider,
      upstreamId: entry?.deployment ?? spec.id,
      spec,
      formats: spec.formats ?? provider.formats,
    };
    if (entry?.baseModel !== undefined) model.baseModel = entry.baseModel;
    this.models.push(model);
    this.byFullId.set(model.id, model);
    this.pinnedById.set(model.id, { pinned: true, candidates: [model] });
    const bare = this.byBareId.get(spec.id) ?? { pinned: false, candidates: [] };
    bare.candidates.push(model);
    this.byBareId.set(spec.id, bare);
  }

  /** A catalog entry by `provider/model` id. */
  get(fullId: string): CatalogModel | undefined {
    return this.byFullId.get(fullId);
  }

  /**
   * The models a requested id may go to: `provider/model` pins one provider; a bare id
   * (or one whose prefix is not a provider) lists every provider serving it. The answer is
   * shared, made once per id: read it, never change it.
   */
  resolve(requested: string): Resolution {
    const slash = requested.indexOf('/');
    if (slash > 0) {
      const provider = this.providers.get(requested.slice(0, slash));
      if (provider) {
        const found = this.pinnedById.get(requested);
        if (found) return found;
        const upstreamId = requested.slice(slash + 1);
        if (provider.acceptsAnyModel && upstreamId) return this.wildcardModel(requested, provider, upstreamId);
        throw modelNotFound(requested, { provider: provider.id, model: upstreamId });
      }
    }
    const bare = this.byBareId.get(requested);
    if (!bare || bare.candidates.length === 0) {
      // A provider that takes any id (`models: ['*']`, an aggregator) serves it pinned: say so (OpenRouter's ids are `vendor/model`).
      const anyModel = [...this.providers.values()].find((p) => p.acceptsAnyModel)?.id;
      if (slash > 0) throw modelNotFound(requested, { prefix: requested.slice(0, slash), configured: [...this.providers.keys()], anyModel });
      throw modelNotFound(requested, anyModel === undefined ? { configured: [...this.providers.keys()] } : { anyModel });
    }
    return bare;
  }

  /**
   * Why a request for `requested` has nowhere to go, in the words of its 404 (`no provider is named 'x' (configured: …)`,
   * `provider 'p' does not list 'm' among its models`, …): '' when no reason is known, undefined when it is served.
   */
  whyNotServed(requested: string): string | undefined {
    try {
      return this.resolve(requested).candidates.length > 0 ? undefined : '';
    } catch (error) {
      return (typeof error === 'object' && error !== null ? NOT_FOUND_REASONS.get(error) : undefined) ?? '';
    }
  }

  /** True when a request for `requested` has somewhere to go (`resolve` finds candidates). */
  serves(requested: string): boolean {
    try {
      return this.resolve(requested).candidates.length > 0;
    } catch {
      return false;
    }
  }

  /** A model of a `*` provider, described once per id (the cache is bounded: ids come from clients). */
  private wildcardModel(fullId: string, provider: Provider, upstreamId: string): Resolution {
    let resolved = this.wildcards.get(fullId);
    if (!resolved) {
      const spec: ModelSpec = provider.describe?.(upstreamId) ?? { id: upstreamId, type: 'chat', capabilities: ['streaming', 'function_calling'] };
      resolved = { pinned: true, candidates: [{ id: fullId, provider, upstreamId, spec, formats: spec.formats ?? provider.formats }] };
      if (this.wildcards.size >= WILDCARD_CACHE_SIZE) this.wildcards.clear();
      this.wildcards.set(fullId, resolved);
    }
    return resolved;
  }

  async close(): Promise<void> {
    await Promise.all([...this.providers.values()].map((p) => p.instance.close?.().catch(() => undefined)));
    await Promise.all([...this.http.values()].map((h) => h.closeAll()));
  }

  /** Each provider's upstream connections in use and waiting now, and its refusals since start. */
  connectionStats(): Array<{ provider: string } & ConnectionStats> {
    return [...this.http].map(([provider, http]) => ({ provider, ...http.stats() }));
  }
}

/** The keys of `value` that are set (a config's absent keys must not override defaults). */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const PROVIDER_KEYS = Object.keys(providerConfigSchema.shape);

/** The option keys a plugin declares (`options.keys`, or a zod object schema's shape), if any. */
function declaredOptionKeys(plugin: ProviderPlugin<unknown>): readonly string[] | undefined {
  const options = plugin.options as { keys?: readonly string[]; shape?: Record<string, unknown> } | undefined;
  if (options?.keys) return options.keys;
  if (options?.shape && typeof options.shape === 'object') return Object.keys(options.shape);
  return undefined;
}

/**
 * Keys of a provider entry that are neither common provider keys nor the plugin's options are
 * errors: all of them when the plugin declares its keys, else those that look like a typo of a
 * common key (`modles`); the rest are handed to a plugin that did not say what it takes.
 */
function checkProviderKeys(id: string, plugin: ProviderPlugin<unknown>, extra: string[], source: string): void {
  const declared = declaredOptionKeys(plugin);
  const known = [...PROVIDER_KEYS, ...(declared ?? [])];
  for (const key of extra) {
    if (declared?.includes(key)) continue;
    if (declared || suggestKey(key, PROVIDER_KEYS)) {
      throw new PluginLoadError(`${source}: ${describeUnknownKey(`providers.${id}`, key, known)}`);
    }
  }
}

/** The model list a model-not-found message names: OpenAI's and Anthropic's clients read it (a format with a list of its own: withModelList). */
const MODELS_LIST = 'GET /v1/models';

/** The sentence every model-not-found message ends with. */
export function modelListHint(list = MODELS_LIST): string {
  return `${list} lists the models served.`;
}

/**
 * A model-not-found error whose last sentence names `list` (Gemini's `GET /v1beta/models`, for a
 * client of Google's API) instead of `GET /v1/models`; any other error as it is.
 */
export function withModelList(error: GatewayError, list: string): GatewayError {
  const said = modelListHint();
  if (error.code !== 'model_not_found' || !error.message.endsWith(said) || list === MODELS_LIST) return error;
  const message = `${error.message.slice(0, -said.length)}${modelListHint(list)}`;
  return new GatewayError(error.code, message, { status: error.status, headers: error.headers, cause: error.cause, retryAfter: error.retryAfter, retryAfterMs: error.retryAfterMs, details: error.details });
}

/** Providers a model-not-found message names at most (the config's order). */
const NAMED_PROVIDERS = 8;

/**
 * The 404 of a model no provider serves, saying where to look: the id's `provider/` prefix names no configured
 * provider (the README's `anthropic/…` on a gateway without that provider), which it says with the ones there are;
 * or it names one whose models do not list the rest (`openai/llama3` on the init template's openai pointed at
 * Ollama), which it says, so the operator knows which list to add it to.
 */
function modelNotFound(id: string, why?: NotFoundWhy): GatewayError {
  const reason = why ? whyNotFound(id, why) : '';
  const error = new GatewayError('model_not_found', `The model '${id}' does not exist or is not served by any configured provider${reason ? `: ${reason}` : ''}. ${modelListHint()}`, {
    details: { model: id },
  });
  if (reason) NOT_FOUND_REASONS.set(error, reason);
  return error;
}

/** The reason each model-not-found error gives (`whyNotServed` reads it: a batch line's refusal says the same). */
const NOT_FOUND_REASONS = new WeakMap<object, string>();

/**
 * Why an id is served nowhere: its `provider/` prefix is no provider, or its provider does not list the model; and a
 * provider that takes any id (`anyModel`), where the id would be served pinned.
 */
type NotFoundWhy =
  | { prefix: string; configured: readonly string[]; anyModel?: string }
  | { provider: string; model: string }
  | { anyModel: string }
  | { configured: readonly string[] };

function whyNotFound(id: string, why: NotFoundWhy): string {
  if ('provider' in why) return `provider '${why.provider}' does not list '${why.model}' among its models`;
  // A bare id no provider lists: the providers there are (a fresh clone without OPENAI_API_KEY has only `mock`).
  if (!('prefix' in why) && !('anyModel' in why)) return `no provider lists it (configured: ${namedProviders(why.configured)})`;
  const pin = why.anyModel === undefined ? '' : `provider '${why.anyModel}' takes any model id: ask for '${why.anyModel}/${id}'`;
  if (!('prefix' in why)) return pin;
  return `no provider is named '${why.prefix}' (configured: ${namedProviders(why.configured)})${pin ? `; ${pin}` : ''}`;
}

/** The configured providers, the first NAMED_PROVIDERS of them. */
function namedProviders(configured: readonly string[]): string {
  return `${configured.slice(0, NAMED_PROVIDERS).join(', ')}${configured.length > NAMED_PROVIDERS ? ', …' : ''}` || 'none';
}

/**
 * A provider whose chat models no request can reach, because its plugin's setup returned no
 * `chat`: every request for them is a 400 that cannot say why, so the operator is told at start.
 */
function warnChatless(provider: Provider, models: readonly CatalogModel[], log: PluginLogger): void {
  const chat = models.filter((m) => m.provider === provider && (m.spec.type ?? 'chat') === 'chat').map((m) => m.id);
  if (chat.length === 0) return;
  log.warn(
    `provider '${provider.id}': plugin '${provider.plugin.name}' returned no chat() from setup, so its chat models (${chat.join(', ')}) answer every request with a 400; return chat from setup (docs/plugins.md) or give those models another type`,
  );
}
