import { describe, expect, it } from 'vitest';
import { holdImageTool, priceImageTool } from '../../src/accounts/price-image-tool.ts';
import type { CatalogModel, ProviderRegistry } from '../../src/providers/index.ts';

/** A Responses upstream of provider `p` whose gpt-image-1 costs 1 credit an input token and 1 an output token (prices are per 1,000 tokens). */
const served = { id: 'p/gpt-5', provider: { id: 'p' }, formats: ['responses'], spec: { id: 'gpt-5' } } as unknown as CatalogModel;
const registry = {
  get: (id: string) => (id === 'p/gpt-image-1' ? { spec: { id: 'gpt-image-1', pricing: { input: 1000, output: 1000 } } } : undefined),
} as unknown as ProviderRegistry;

describe('the hold of an image_generation tool', () => {
  it('holds the prompt once for each image the tool may make: every image call reads it', () => {
    // A low-quality square image: 272 output tokens; the request's input bound, 1,000 tokens.
    const tool = { quality: 'low', size: '1024x1024' };
    expect(holdImageTool(registry, [served], { ...tool, calls: 1 }, 1_000, 1)).toBe(1_000 + 272);
    // max_tool_calls 3: three calls, each its prompt and its image (before: 1,000 + 3 × 272, the prompt held once).
    expect(holdImageTool(registry, [served], { ...tool, calls: 3 }, 1_000, 1)).toBe(3 * (1_000 + 272));
  });

  it("holds no less than the settlement charges with a tiered image price: the settlement prices the tool's summed usage at the tier of its summed input", () => {
    // A configured tier above 2,000 input tokens at twice the price (config may declare one; no bundled image model has it).
    const tiered = {
      get: (id: string) => (id === 'p/gpt-image-1' ? { spec: { id: 'gpt-image-1', pricing: { input: 1000, output: 1000, tiers: [{ aboveInputTokens: 2_000, input: 2000, output: 2000 }] } } } : undefined),
    } as unknown as ProviderRegistry;
    const tool = { quality: 'low', size: '1024x1024', calls: 3 };
    // The worst the three calls can report: tool_usage.image_gen sums them, 3 × 1,000 input and 3 × 272 output, at the tier.
    const settled = priceImageTool(tiered, served, { images: 3, inputTokens: 3_000, outputTokens: 3 * 272 }, 1);
    expect(settled).toBe(2 * (3_000 + 816));
    // Before: 3 × (1,000 + 272) = 3,816, each call below the tier, half what the settlement takes.
    expect(holdImageTool(tiered, [served], tool, 1_000, 1)).toBe(settled);
  });
});
