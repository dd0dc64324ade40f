export { configSchema, providerConfigSchema, type GatewayConfig, type GatewayConfigInput, type ProviderConfig, type ModelEntry } from './schema.ts';
export { defineConfig } from './define-config.ts';
export { loadConfig, parseConfig, displayPath, configSource, ConfigError, DEFAULT_CONFIG, SEARCH_PLACES, type LoadedConfig } from './load-config.ts';
export { explainConfigIssues, knownKeysAt } from './explain-issues.ts';
export { describeUnknownKey, suggestKey } from './suggest-key.ts';
export { corsConfigSchema, type CorsConfig } from './cors-schema.ts';
export { metricsConfigSchema, requestLogConfigSchema, type MetricsConfig, type RequestLogTarget } from './observability-schema.ts';
export { adminConfigSchema, type AdminConfig } from './admin-schema.ts';
