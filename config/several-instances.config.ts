import { defineConfig } from 'gateway';

/**
 * Several gateway processes behind one load balancer, one config file: each instance gets its
 * port and data dir from the environment (one process owns a data dir) and all of them share
 * their rate limits and concurrency slots through one Redis. Credits and quotas stay in each
 * instance's data dir: keep an account on one instance (docs/accounts-and-limits.md).
 *
 *   cp config/several-instances.config.ts gateway.config.ts
 *   GATEWAY_INSTANCE=a PORT=8787 npx gateway serve &
 *   GATEWAY_INSTANCE=b PORT=8788 npx gateway serve &
 */
const instance = process.env.GATEWAY_INSTANCE ?? 'a';

export default defineConfig({
  // Behind a load balancer: listen on every interface, trust its X-Forwarded-For.
  server: { host: '0.0.0.0', port: Number(process.env.PORT ?? 8787), trustProxy: true, shutdownGraceSeconds: 20 },
  dataDir: `.gateway-${instance}`,
  providers: {
    openai: { plugin: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, models: ['gpt-4.1', 'gpt-4.1-mini'] },
    anthropic: { plugin: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY, models: ['claude-sonnet-4-5'] },
  },
  limits: {
    store: { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: 'gw:rl:', onError: 'closed' },
  },
  routing: {
    // Each instance keeps its own circuits; open them a little sooner.
    breaker: { failureThreshold: 3, cooldownMs: 15_000 },
  },
  logging: { level: 'info', requests: true },
});
