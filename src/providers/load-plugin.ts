import path from 'node:path';
import { createRequire } from 'node:module';
import { describeUnknownKey, importUserModule, suggestKey, type GatewayConfig } from '../config/index.ts';
import { findFormat, registerFormat, wireFormatIds, type FormatDefinition } from '../formats/index.ts';
import { PLUGIN_KEYS, describeShapeProblem, pluginShapeProblem, type ProviderPlugin } from '../plugin-kit/index.ts';

/** A provider whose plugin could not be found, loaded or validated. */
export class PluginLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

/**
 * The first-party plugins (`plugins/` at the package root), by the name a config gives them.
 * Imported by the bundler's own graph, so the built package ships them beside the core and
 * they share its plugin kit.
 */
const BUILTIN_PLUGINS: Record<string, () => Promise<Record<string, unknown>>> = {
  mock: () => import('../../plugins/mock/index.ts'),
  openai: () => import('../../plugins/openai/index.ts'),
  anthropic: () => import('../../plugins/anthropic/index.ts'),
  azure: () => import('../../plugins/azure/index.ts'),
  bedrock: () => import('../../plugins/bedrock/index.ts'),
  google: () => import('../../plugins/google/index.ts'),
};

/** The names of the built-in plugins. */
export const BUILTIN_PLUGIN_NAMES: readonly string[] = Object.keys(BUILTIN_PLUGINS);

/**
 * The built-in plugins that bring wire formats of their own (`wireFormats`): the only ones
 * registerPluginFormats has to load (test/plugins/plugin-exports.test.ts holds it to the plugins).
 */
export const BUILTIN_PLUGINS_WITH_FORMATS: ReadonlySet<string> = new Set(['bedrock']);

/** The first own key of a plugin object that looks like a misspelt plugin key; extra keys of other names are the plugin's own. */
function misspeltKey(candidate: unknown): string | undefined {
  if (!candidate || typeof candidate !== 'object') return undefined;
  return Object.keys(candidate).find((key) => !PLUGIN_KEYS.includes(key) && suggestKey(key, PLUGIN_KEYS) !== undefined);
}

/** The file a non-built-in `plugin` spec points at: a path (relative to the config file) or an npm package. */
export function resolvePluginFile(spec: string, baseDir: string): string {
  if (spec.startsWith('.') || path.isAbsolute(spec)) return path.resolve(baseDir, spec);
  return createRequire(path.join(baseDir, 'noop.js')).resolve(spec);
}

/** Imports a plugin module: a built-in by name, else a file or package (TypeScript or JavaScript, ESM or CommonJS). */
function importPlugin(spec: string, baseDir: string): Promise<Record<string, unknown>> {
  const builtin = Object.hasOwn(BUILTIN_PLUGINS, spec) ? BUILTIN_PLUGINS[spec] : undefined;
  if (builtin) return builtin();
  return importUserModule(resolvePluginFile(spec, baseDir));
}

/**
 * The loader's first line; for a bare name that resolves to nothing, what it may have meant instead
 * (a misspelt built-in reads as a missing npm package otherwise).
 */
function whyNotLoaded(spec: string, error: unknown): string {
  const message = (error as Error).message.split('\n')[0];
  const bare = !spec.startsWith('.') && !path.isAbsolute(spec);
  if (!bare || (error as { code?: unknown }).code !== 'MODULE_NOT_FOUND' || !message.startsWith(`Cannot find module '${spec}'`)) return message;
  const near = suggestKey(spec, BUILTIN_PLUGIN_NAMES);
  return `no built-in plugin or package of that name (${near ? `did you mean '${near}'? ` : ''}built-in: ${BUILTIN_PLUGIN_NAMES.join(', ')})`;
}

/** Imports and validates one provider plugin; errors name the provider and the plugin. */
export async function loadPlugin(providerId: string, spec: string, baseDir: string): Promise<ProviderPlugin<unknown>> {
  let mod: Record<string, unknown>;
  try {
    mod = await importPlugin(spec, baseDir);
  } catch (error) {
    throw new PluginLoadError(`provider '${providerId}': cannot load plugin '${spec}': ${whyNotLoaded(spec, error)}`);
  }
  // The loader's interop gives a module without a default export its own namespace as `default`:
  // a real default export is one the module names.
  const named = Object.keys(mod);
  const candidate = (named.includes('default') ? mod.default : undefined) ?? mod.plugin ?? mod.default;
  const problem = pluginShapeProblem(candidate);
  if (problem && !named.includes('default') && mod.plugin === undefined && named.length > 0 && !named.includes('setup')) {
    throw new PluginLoadError(`provider '${providerId}': plugin '${spec}' has no default export (it exports ${named.join(', ')}); export default definePlugin({...}), or export it as \`plugin\``);
  }
  const misspelt = misspeltKey(candidate);
  if (misspelt) throw new PluginLoadError(`provider '${providerId}': plugin '${spec}' has an ${describeUnknownKey('', misspelt, PLUGIN_KEYS)}`);
  if (problem) {
    throw new PluginLoadError(
      `provider '${providerId}': plugin '${spec}' is not a valid provider plugin ${describeShapeProblem(problem)}`,
    );
  }
  const plugin = candidate as ProviderPlugin<unknown>;
  for (const format of plugin.wireFormats ?? []) {
    try {
      registerFormat(format as FormatDefinition);
    } catch (error) {
      throw new PluginLoadError(`provider '${providerId}': plugin '${spec}' brings a wire format the gateway cannot register: ${(error as Error).message}`);
    }
  }
  for (const id of [...plugin.formats, ...(plugin.supportedFormats ?? [])]) {
    if (findFormat(id)) continue;
    throw new PluginLoadError(
      `provider '${providerId}': plugin '${spec}' declares format '${id}', which is not registered (known: ${wireFormatIds().join(', ')}) and not in its wireFormats: a format of its own goes there, wireFormats: [defineFormat({ id: '${id}', … })] (docs/adding-a-format.md)`,
    );
  }
  return plugin;
}

/**
 * Loads the plugin of every enabled provider without setting it up, so the wire formats they
 * bring are registered: what a process that serves nothing (the CLI's key scopes) needs to
 * know every format the server speaks. A built-in plugin that brings none is not loaded.
 */
export async function registerPluginFormats(config: Pick<GatewayConfig, 'providers'>, configDir: string): Promise<void> {
  for (const [id, provider] of Object.entries(config.providers)) {
    if (provider.enabled === false || (Object.hasOwn(BUILTIN_PLUGINS, provider.plugin) && !BUILTIN_PLUGINS_WITH_FORMATS.has(provider.plugin))) continue;
    await loadPlugin(id, provider.plugin, configDir);
  }
}

/** The formats a plugin may be called with. */
export function supportedFormatsOf(plugin: ProviderPlugin<unknown>): readonly string[] {
  return plugin.supportedFormats ?? plugin.formats;
}
