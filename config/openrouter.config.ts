import { defineConfig } from 'gateway';

/**
 * An OpenRouter-style aggregator upstream (any OpenAI-compatible API that serves many vendors'
 * models): `models: ['*']` lets clients pin any id the aggregator knows
 * (`openrouter/anthropic/claude-sonnet-4.5`), the listed ones show in /v1/models with their
 * prices (from the bundled catalog's OpenRouter entries, picked by the base URL; pinned ids it
 * knows are priced too), and OpenRouter's attribution headers go on every call.
 *
 *   cp config/openrouter.config.ts gateway.config.ts
 *   OPENROUTER_API_KEY=… npx gateway serve
 */
export default defineConfig({
  dataDir: '.gateway',
  providers: {
    openrouter: {
      plugin: 'openai',
      baseURL: 'https://openrouter.ai/api/v1',
      apiKey: process.env.OPENROUTER_API_KEY,
      headers: { 'HTTP-Referer': 'https://gateway.example.com', 'X-Title': 'gateway' },
      models: ['*', 'openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4.5', 'meta-llama/llama-3.3-70b-instruct'],
      // Slow open-weight models: give the first byte more time than the default.
      timeouts: { firstByte: 180_000 },
    },
  },
  routing: {
    // Bare ids that several providers serve go to the cheapest first.
    strategy: 'price',
  },
});
