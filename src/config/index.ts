export { configSchema, providerConfigSchema, type GatewayConfig, type GatewayConfigInput, type ProviderConfig, type ModelEntry } from './schema.ts';
export { defineConfig } from './define-config.ts';
export { loadConfig, parseConfig, ConfigError, type LoadedConfig } from './load-config.ts';
