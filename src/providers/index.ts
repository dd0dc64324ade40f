export { ProviderRegistry, modelListHint, withModelList } from './registry.ts';
export { loadPlugin, registerPluginFormats, resolvePluginFile, PluginLoadError, BUILTIN_PLUGIN_NAMES } from './load-plugin.ts';
export type { Provider, CatalogModel } from './types.ts';
export { toModelObject } from './describe-model.ts';
export { modalitiesOf } from './model-object-fields.ts';
export { baseModelOf, hasKnownCapabilities } from './resolve-model-spec.ts';
export { anthropicListPage, anthropicModelPage, anthropicPageQuery, toAnthropicModelObject } from './describe-anthropic-model.ts';
