import { defineConfig } from 'gateway';

/**
 * Gemini and Claude on Google Cloud's Vertex AI, Claude with the Anthropic API as the fallback.
 * Clients use the Vertex ids (`claude-sonnet-4-5@20250929`, `gemini-2.5-pro`) in any wire
 * format; Messages clients of Claude and Gemini clients of Gemini pass through byte for byte
 * (thinking and thought signatures included). Authentication is a service-account key: the
 * gateway signs a JWT with it and caches the access token, minting a new one 5 minutes before
 * it expires. docs/providers.md has every option.
 *
 *   cp config/google-vertex.config.ts gateway.config.ts
 *   GOOGLE_APPLICATION_CREDENTIALS=~/keys/vertex.json GOOGLE_CLOUD_PROJECT=my-project \
 *     ANTHROPIC_API_KEY=… npx gateway serve
 */
export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    vertex: {
      plugin: 'google',
      api: 'vertex',
      // Default: the service account's own project_id.
      project: process.env.GOOGLE_CLOUD_PROJECT,
      // A region (`us-east5`, `europe-west1`), `us`/`eu`, or `global` (the default).
      location: 'us-east5',
      // A key file path, the key's JSON text or object; unset = GOOGLE_APPLICATION_CREDENTIALS.
      credentials: process.env.GOOGLE_APPLICATION_CREDENTIALS,
      // Claude ids take the Messages format (`:rawPredict`), Gemini ids the gemini format.
      models: ['claude-sonnet-4-5@20250929', 'claude-haiku-4-5@20251001', 'gemini-2.5-pro', 'gemini-2.5-flash'],
    },
    anthropic: {
      plugin: 'anthropic',
      apiKey: process.env.ANTHROPIC_API_KEY,
      models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
    },
  },
  routing: {
    models: {
      'claude-sonnet-4-5@20250929': { fallbacks: ['anthropic/claude-sonnet-4-5'] },
      'claude-haiku-4-5@20251001': { fallbacks: ['anthropic/claude-haiku-4-5'] },
    },
  },
});
