/** The gateway package's public API: config helpers and the plugin kit. */
export { defineConfig, type GatewayConfigInput, type GatewayConfig } from './config/index.ts';
export * from './plugin-kit/index.ts';
