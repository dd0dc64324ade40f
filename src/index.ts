/** The gateway package's public API: config helpers and the plugin kit. */
export { defineConfig } from './config/index.ts';
export type { GatewayConfigInput, GatewayConfig } from './config/index.ts';
export * from './plugin-kit/index.ts';
