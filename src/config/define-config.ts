import type { GatewayConfigInput } from './schema.ts';

/** Types a gateway config object; returns it unchanged. */
export function defineConfig(config: GatewayConfigInput): GatewayConfigInput {
  return config;
}
