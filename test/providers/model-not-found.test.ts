import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderRegistry } from '../../src/providers/index.ts';
import { mockRegistry } from '../routing/helpers.ts';

/** The message of what `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
}

// Found by a newcomer: the README's `anthropic/claude-sonnet-4-5` on a fresh clone (no Anthropic key, so no `anthropic`
// provider) answered only "does not exist or is not served by any configured provider", with nothing to do next.
describe('model_not_found says where to look', () => {
  let registry: ProviderRegistry;
  beforeAll(async () => {
    registry = await mockRegistry({ mock: { plugin: 'mock' }, local: { plugin: 'mock', models: ['org/model-a'] } });
  });
  afterAll(() => registry.close());

  it('an id whose provider/ prefix is no configured provider names the prefix and the providers there are', () => {
    expect(thrown(() => registry.resolve('anthropic/claude-sonnet-4-5'))).toBe(
      "The model 'anthropic/claude-sonnet-4-5' does not exist or is not served by any configured provider: no provider is named 'anthropic' (configured: mock, local). GET /v1/models lists the models served.",
    );
  });

  // Found by a newcomer: the init template's openai pointed at Ollama (OPENAI_BASE_URL), asked for openai/llama3, said
  // only "does not exist": now it names the provider whose models list lacks it, where the operator adds it.
  it('a provider that does not list the model says so; a bare id nobody serves points to GET /v1/models', () => {
    expect(thrown(() => registry.resolve('mock/nope'))).toBe(
      "The model 'mock/nope' does not exist or is not served by any configured provider: provider 'mock' does not list 'nope' among its models. GET /v1/models lists the models served.",
    );
    // Found by a newcomer: an app's own `gpt-4o-mini` on a fresh clone (no OPENAI_API_KEY, so only `mock`) said nothing of
    // which providers there are; now it names them, as an unknown prefix does.
    expect(thrown(() => registry.resolve('nope'))).toBe(
      "The model 'nope' does not exist or is not served by any configured provider: no provider lists it (configured: mock, local). GET /v1/models lists the models served.",
    );
    // A bare id with a slash (an OpenRouter-style id a provider serves) still resolves.
    expect(registry.resolve('org/model-a').candidates.map((c) => c.id)).toEqual(['local/org/model-a']);
  });

  it('the quoted id and prefix stay bounded (64 characters each)', () => {
    const message = thrown(() => registry.resolve(`${'p'.repeat(500)}/x`));
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('(configured: mock, local)');
    expect(thrown(() => registry.resolve(`mock/${'m'.repeat(500)}`)).length).toBeLessThan(400);
  });
});

// Found by a newcomer: an OpenRouter app's ids (`google/gemini-2.5-pro`) on a gateway whose aggregator provider takes
// any id (`models: ['*']`, config/openrouter.config.ts) were "no provider is named 'google'", with no word that the
// same id pinned to that provider (`orr/google/gemini-2.5-pro`) is served.
describe('model_not_found names a provider that takes any id', () => {
  let registry: ProviderRegistry;
  beforeAll(async () => {
    registry = await mockRegistry({ mock: { plugin: 'mock' }, orr: { plugin: 'mock', models: ['*', 'anthropic/claude-sonnet-4.5'] } });
  });
  afterAll(() => registry.close());

  it('an id whose prefix is no provider, and a bare id nobody lists, say how to pin them there', () => {
    expect(thrown(() => registry.resolve('google/gemini-2.5-pro'))).toBe(
      "The model 'google/gemini-2.5-pro' does not exist or is not served by any configured provider: no provider is named 'google' (configured: mock, orr); provider 'orr' takes any model id: ask for 'orr/google/gemini-2.5-pro'. GET /v1/models lists the models served.",
    );
    expect(thrown(() => registry.resolve('gpt-4o'))).toBe(
      "The model 'gpt-4o' does not exist or is not served by any configured provider: provider 'orr' takes any model id: ask for 'orr/gpt-4o'. GET /v1/models lists the models served.",
    );
    expect(registry.resolve('orr/google/gemini-2.5-pro').candidates.map((c) => c.id)).toEqual(['orr/google/gemini-2.5-pro']);
    expect(registry.resolve('anthropic/claude-sonnet-4.5').candidates.map((c) => c.id)).toEqual(['orr/anthropic/claude-sonnet-4.5']);
  });
});
