import { defineConfig } from 'gateway';

/**
 * Amazon Bedrock: Claude through InvokeModel (Messages clients keep thinking signatures, cache
 * points and tool use byte for byte), Llama, Nova and the rest through Converse. Credentials are
 * read as the AWS SDKs read them (AWS_ACCESS_KEY_ID/…, AWS_PROFILE and ~/.aws files, a Bedrock
 * API key in AWS_BEARER_TOKEN_BEDROCK, else the default chain: SSO, credential_process, EKS, ECS
 * and EC2 roles, refreshed before they expire); nothing secret goes in this file. A Claude throttle on
 * Bedrock falls back to Anthropic's own API. docs/providers.md says what every key does.
 *
 *   cp config/bedrock.config.ts gateway.config.ts
 *   AWS_PROFILE=bedrock AWS_REGION=us-east-1 ANTHROPIC_API_KEY=… npx gateway serve
 */
export default defineConfig({
  server: { port: 8787, host: '127.0.0.1' },
  dataDir: '.gateway',
  providers: {
    bedrock: {
      plugin: 'bedrock',
      region: process.env.AWS_REGION ?? 'us-east-1',
      models: [
        // A cross-region inference profile (us., eu., apac., global.): priced as its base model.
        'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
        'us.anthropic.claude-haiku-4-5-20251001-v1:0',
        'amazon.nova-pro-v1:0',
        'meta.llama3-3-70b-instruct-v1:0',
      ],
    },
    anthropic: { plugin: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY, models: ['claude-sonnet-4-5'] },
  },
  routing: {
    models: { 'bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0': { fallbacks: ['anthropic/claude-sonnet-4-5'] } },
  },
});
