import { defineConfig } from 'gateway';

/**
 * Gemini through Google AI Studio (an API key from aistudio.google.com), with a fallback to the
 * same model on Vertex AI when AI Studio's quota runs out. Any client works: Gemini clients
 * (`@google/genai`, gemini-cli with GOOGLE_GEMINI_BASE_URL) pass through, OpenAI and Anthropic
 * clients are converted, thought signatures kept. docs/providers.md has every option.
 *
 *   cp config/google-ai-studio.config.ts gateway.config.ts
 *   GEMINI_API_KEY=… GOOGLE_APPLICATION_CREDENTIALS=~/keys/vertex.json npx gateway serve
 */
export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    google: {
      plugin: 'google',
      api: 'gemini',
      apiKey: process.env.GEMINI_API_KEY,
      // Prices (cached and thinking tokens too) come from the bundled catalog.
      models: ['gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-3-pro-preview'],
    },
    vertex: {
      plugin: 'google',
      api: 'vertex',
      // The newest Gemini models are served on the global endpoint first.
      location: 'global',
      credentials: process.env.GOOGLE_APPLICATION_CREDENTIALS,
      models: ['gemini-2.5-pro'],
    },
  },
  routing: {
    models: {
      'google/gemini-2.5-pro': { fallbacks: ['vertex/gemini-2.5-pro'] },
    },
  },
});
