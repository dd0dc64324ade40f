import { configSchema, type GatewayConfigInput } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/index.ts';
import { REPO_ROOT } from '../helpers/spawn-gateway.ts';

const quiet = { info: () => undefined, warn: () => undefined };

/** A registry of `mock` providers built from a config, as the gateway builds it. */
export function mockRegistry(providers: NonNullable<GatewayConfigInput['providers']>): Promise<ProviderRegistry> {
  return ProviderRegistry.create(configSchema.parse({ providers }), { configDir: REPO_ROOT, log: quiet });
}
