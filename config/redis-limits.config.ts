import { defineConfig } from 'gateway';

/**
 * Rate limits and concurrency slots kept in Redis (sliding windows, exact across restarts and
 * instances), with tier limits, per-endpoint limits and what happens when Redis is down.
 *
 *   cp config/redis-limits.config.ts gateway.config.ts
 *   REDIS_URL=redis://127.0.0.1:6379 OPENAI_API_KEY=… npx gateway serve
 */
export default defineConfig({
  dataDir: '.gateway',
  providers: {
    openai: { plugin: 'openai', baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY, models: ['gpt-4.1-mini'] },
  },
  limits: {
    windowMs: 60_000,
    default: 600,
    tiers: { free: 10, basic: 50, fellow: 100, pro: 100, enterprise: null },
    endpoints: {
      'POST /v1/chat/completions': 60,
      'POST /v1/images/*': { rpm: 10, per: 'caller' },
      'POST /api/auth/login': { rpm: 5, per: 'ip' },
    },
    concurrency: { default: 10, tiers: { free: 2, basic: 5, fellow: 10, pro: 20, enterprise: null } },
    store: {
      redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      prefix: 'gw:rl:',
      // 'open': admit while Redis is unreachable (limits not enforced); 'closed': 503 instead.
      onError: 'open',
      commandTimeoutMs: 300,
    },
  },
});
