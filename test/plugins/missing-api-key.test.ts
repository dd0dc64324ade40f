import { afterEach, describe, expect, it } from 'vitest';
import anthropicPlugin from '../../plugins/anthropic/index.ts';
import openaiPlugin from '../../plugins/openai/index.ts';
import type { ProviderPlugin } from '../../src/plugin-kit/index.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory } from '../../src/upstream/index.ts';

const factories: UndiciHttpFactory[] = [];
afterEach(async () => {
  await Promise.all(factories.splice(0).map((f) => f.closeAll()));
});

/** Sets the plugin up as the host would (no call is made) and returns what it warned. */
async function warningsOf<Options>(plugin: ProviderPlugin<Options>, baseURL: string | undefined, apiKey?: string, headers: Record<string, string> = {}): Promise<string[]> {
  const warned: string[] = [];
  const http = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
  factories.push(http);
  const log = { info: () => undefined, warn: (message: string) => void warned.push(message) };
  const instance = await plugin.setup({ id: 'up', baseURL, apiKey, headers, timeouts: DEFAULT_TIMEOUTS, options: plugin.options!.parse({}), http, log });
  await instance.close?.();
  return warned;
}

// The README's config reads `apiKey: process.env.OPENAI_API_KEY`: with the variable unset, the
// first request was the first sign (a 502 "rejected the gateway's credentials").
describe('a provider of OpenAI or Anthropic itself without a key says so at start-up', () => {
  it('openai: warns for api.openai.com without a key, not with one, an authorization header, or a local upstream', async () => {
    expect(await warningsOf(openaiPlugin, 'https://api.openai.com/v1')).toEqual(["provider 'up': no apiKey (is OPENAI_API_KEY set?); OpenAI will refuse its calls"]);
    expect(await warningsOf(openaiPlugin, 'https://api.openai.com/v1', '')).toHaveLength(1);
    expect(await warningsOf(openaiPlugin, 'https://api.openai.com/v1', 'sk-test')).toEqual([]);
    expect(await warningsOf(openaiPlugin, 'https://api.openai.com/v1', undefined, { Authorization: 'Bearer sk-test' })).toEqual([]);
    expect(await warningsOf(openaiPlugin, 'http://127.0.0.1:11434/v1')).toEqual([]);
  });

  it('anthropic: warns for api.anthropic.com (the default base URL) without a key, not with one or a key header, or behind a proxy', async () => {
    expect(await warningsOf(anthropicPlugin, undefined)).toEqual(["provider 'up': no apiKey (is ANTHROPIC_API_KEY set?); Anthropic will refuse its calls"]);
    expect(await warningsOf(anthropicPlugin, 'https://api.anthropic.com/v1')).toHaveLength(1);
    expect(await warningsOf(anthropicPlugin, undefined, 'sk-ant-test')).toEqual([]);
    expect(await warningsOf(anthropicPlugin, undefined, undefined, { 'X-Api-Key': 'sk-ant-test' })).toEqual([]);
    expect(await warningsOf(anthropicPlugin, 'http://127.0.0.1:9000')).toEqual([]);
  });
});
