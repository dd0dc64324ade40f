import { defineConfig } from 'gateway';

/**
 * Several gateway processes behind one load balancer, one config file: every record (accounts,
 * keys, sessions, balances, Media Library, stored Responses, files, batches) lives in one
 * PostgreSQL database, rate limits and concurrency slots in one Redis; each instance gets its
 * port and its own data dir from the environment (one process owns a data dir; keep it on
 * persistent storage: it holds the instance's settlement outbox, see docs/scale-out.md).
 * See docs/scale-out.md for what is shared and how.
 *
 *   cp config/several-instances.config.ts gateway.config.ts
 *   npx gateway store migrate --data-dir .gateway --to "$DATABASE_URL"   # once, to bring a dev box's data dir over
 *                                     (without --data-dir it would read this config's .gateway-a, which has none)
 *   GATEWAY_INSTANCE=a PORT=8787 npx gateway serve &
 *   GATEWAY_INSTANCE=b PORT=8788 npx gateway serve &
 */
const instance = process.env.GATEWAY_INSTANCE ?? 'a';

export default defineConfig({
  // Behind a load balancer: listen on every interface, trust its X-Forwarded-For.
  server: { host: '0.0.0.0', port: Number(process.env.PORT ?? 8787), trustProxy: true, shutdownGraceSeconds: 20 },
  dataDir: `.gateway-${instance}`,
  // The shared records; the schema is created and migrated at start-up (safe when instances start together).
  store: { postgres: process.env.DATABASE_URL ?? 'postgres://gateway@127.0.0.1:5432/gateway' },
  providers: {
    // mock: { plugin: 'mock' },   // offline models (mock/echo…), to try the set-up without upstream keys
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
