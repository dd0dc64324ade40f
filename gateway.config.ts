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
            // Types, context windows and prices from the bundled catalog (docs/models.md).
            models: ['gpt-4o-mini', 'gpt-4.1', 'gpt-image-1', 'tts-1', 'whisper-1'],
          },
        }
      : {}),
    ...(process.env.ANTHROPIC_API_KEY
      ? {
          anthropic: {
            plugin: 'anthropic',
            baseURL: process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
            apiKey: process.env.ANTHROPIC_API_KEY,
            models: ['claude-sonnet-4-5'],
          },
        }
      : {}),
  },
});
