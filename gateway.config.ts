import { defineConfig } from 'gateway';

/**
 * The working example config. `mock` is always on (offline, deterministic);
 * `openai` and `anthropic` switch on when their API keys are in the environment.
 */
export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    mock: { plugin: 'mock' },
    ...(process.env.OPENAI_API_KEY
      ? {
          openai: {
            plugin: 'openai',
            baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
            apiKey: process.env.OPENAI_API_KEY,
            models: ['gpt-4o-mini', { id: 'gpt-4.1', pricing: { input: 2, output: 8 } }],
          },
        }
      : {}),
    ...(process.env.ANTHROPIC_API_KEY
      ? {
          anthropic: {
            plugin: 'anthropic',
            baseURL: process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
            apiKey: process.env.ANTHROPIC_API_KEY,
            models: [{ id: 'claude-sonnet-4-5', pricing: { input: 3, output: 15 } }],
          },
        }
      : {}),
  },
});
