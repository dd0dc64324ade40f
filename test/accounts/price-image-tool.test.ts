import { describe, expect, it } from 'vitest';
import { holdImageTool } from '../../src/accounts/price-image-tool.ts';
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
});
