import { defineConfig } from 'gateway';

/**
 * Azure OpenAI (Azure AI Foundry): model ids mapped to your deployments, so prices come from
 * the catalog's OpenAI entries and clients keep using `gpt-4.1`. `azure` calls the GA v1 path
 * with an API key; `azure-entra` calls the dated deployments path with a Microsoft Entra app
 * (client credentials; the app needs the "Cognitive Services OpenAI User" role). Both serve
 * `/v1/chat/completions`, `/v1/responses` and `/v1/messages`; an Azure outage or throttle on
 * `gpt-4.1` falls back from one to the other. docs/providers.md says what every key does.
 *
 *   cp config/azure.config.ts gateway.config.ts
 *   AZURE_OPENAI_ENDPOINT=https://my-resource.openai.azure.com AZURE_OPENAI_API_KEY=… \
 *   AZURE_TENANT_ID=… AZURE_CLIENT_ID=… AZURE_CLIENT_SECRET=… npx gateway serve
 */
const endpoint = process.env.AZURE_OPENAI_ENDPOINT ?? 'https://my-resource.openai.azure.com';

export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    azure: {
      plugin: 'azure',
      endpoint,
      apiKey: process.env.AZURE_OPENAI_API_KEY,
      // Responses passes through to deployments that serve it; other formats are converted.
      formats: ['chat', 'responses'],
      models: [
        { id: 'gpt-4.1', deployment: 'gpt-41-prod' },
        { id: 'gpt-4.1-mini', deployment: 'gpt-41-mini' },
        { id: 'text-embedding-3-small', deployment: 'embeddings' },
        { id: 'dall-e-3', deployment: 'dalle3' },
        { id: 'whisper-1', deployment: 'whisper' },
      ],
    },
    'azure-entra': {
      plugin: 'azure',
      endpoint,
      apiPath: 'deployments',
      apiVersion: '2025-04-01-preview',
      tenantId: process.env.AZURE_TENANT_ID,
      clientId: process.env.AZURE_CLIENT_ID,
      clientSecret: process.env.AZURE_CLIENT_SECRET,
      models: [{ id: 'gpt-4.1', deployment: 'gpt-41-prod' }],
      priority: 1,
    },
  },
  routing: {
    models: {
      'azure/gpt-4.1': { fallbacks: ['azure-entra/gpt-4.1'] },
    },
  },
});
