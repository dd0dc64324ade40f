import { defineConfig } from 'gateway';

/**
 * OpenAI and Anthropic side by side. Clients call either by its own id (`gpt-4.1`,
 * `claude-sonnet-4-5`) or pin a provider (`openai/gpt-4.1`), in any of the three wire formats;
 * an Anthropic outage falls back to OpenAI for `claude-sonnet-4-5` (10% off the price).
 *
 *   cp config/openai-anthropic.config.ts gateway.config.ts
 *   OPENAI_API_KEY=… ANTHROPIC_API_KEY=… npx gateway serve
 */
export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    openai: {
      plugin: 'openai',
      baseURL: 'https://api.openai.com/v1',
      apiKey: process.env.OPENAI_API_KEY,
      // Prices and context windows come from the bundled catalog; list what you serve.
      models: ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o-mini'],
    },
    anthropic: {
      plugin: 'anthropic',
      baseURL: 'https://api.anthropic.com',
      apiKey: process.env.ANTHROPIC_API_KEY,
      models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
    },
    // Offline and free: handy for smoke tests (`mock/echo`).
    mock: { plugin: 'mock' },
  },
  routing: {
    models: {
      'claude-sonnet-4-5': { fallbacks: ['openai/gpt-4.1'] },
      'claude-haiku-4-5': { fallbacks: ['openai/gpt-4.1-mini'] },
    },
  },
});
