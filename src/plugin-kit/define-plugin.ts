import type { ProviderPlugin } from './types.ts';

/** Types a provider plugin object; returns it unchanged. */
export function definePlugin<Options = Record<string, unknown>>(plugin: ProviderPlugin<Options>): ProviderPlugin<Options> {
  return plugin;
}

/** Alias of definePlugin, for readers who think of plugins as providers. */
export const defineProvider = definePlugin;
