/** The commented gateway.config.ts that `gateway init` writes for a new project. */
export const INIT_TEMPLATE = `import { defineConfig } from 'gateway';

/**
 * Gateway config, written by \`gateway init\`. Every key is optional, and an unknown key is an
 * error (with a suggestion), so a typo stops \`gateway serve\` instead of being ignored.
 * Full reference: the README's "Configuration" section and docs/.
 */
export default defineConfig({
  // Where \`gateway serve\` listens (--port / --host win). Port 0 picks a free port.
  // Keep 127.0.0.1 unless other machines must reach the gateway.
  server: {
    port: 8787,
    host: '127.0.0.1',
    // Browser apps on these origins may call the gateway directly (CORS):
    // cors: { origins: ['http://localhost:5173'] },
  },

  // Accounts, API keys, the usage ledger and the Media Library (keep it out of version control).
  dataDir: '.gateway',

  providers: {
    // Offline and deterministic, no key needed: "mock/echo" echoes the last message (streaming,
    // tool calls, thinking), plus mock/image, mock/tts, mock/whisper, mock/embed,
    // mock/omni-moderation-latest and the job models mock/video, mock/music and mock/3d
    // (gateway models ls lists them with their prices).
    mock: { plugin: 'mock' },

    // OpenAI, or any OpenAI-compatible upstream (OpenRouter, vLLM, Ollama, Groq…) through
    // OPENAI_BASE_URL. On when OPENAI_API_KEY is set. \`models\` lists the ids it serves (asked as
    // openai/<id>): put your upstream's own there (e.g. 'llama3.2'), or '*' for any id. Types,
    // context windows and prices of known ids come from the bundled catalog; write
    // { id, pricing: { input, output } } (USD per million tokens) to set your own price.
    ...(process.env.OPENAI_API_KEY
      ? {
          openai: {
            plugin: 'openai',
            baseURL: process.env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
            apiKey: process.env.OPENAI_API_KEY,
            models: ['gpt-4o-mini', 'gpt-4.1', 'gpt-image-1', 'tts-1', 'whisper-1'],
          },
        }
      : {}),

    // Anthropic Messages. On when ANTHROPIC_API_KEY is set (baseURL is the host, without /v1).
    ...(process.env.ANTHROPIC_API_KEY
      ? {
          anthropic: {
            plugin: 'anthropic',
            baseURL: process.env.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com',
            apiKey: process.env.ANTHROPIC_API_KEY,
          },
        }
      : {}),
  },

  // logging: { level: 'info' },   // silent | error | warn | info | debug
});
`;
