/** The gateway package's public API: config helpers and the plugin kit. */
export { defineConfig } from './config/define-config.ts';
export type { GatewayConfigInput, GatewayConfig } from './config/schema.ts';
export * from './plugin-kit/index.ts';
