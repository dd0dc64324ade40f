export { ProviderRegistry } from './registry.ts';
export { loadPlugin, resolvePluginSpecifier, PluginLoadError, BUILTIN_PLUGIN_DIR } from './load-plugin.ts';
export type { Provider, CatalogModel } from './types.ts';
export { toModelObject } from './describe-model.ts';
