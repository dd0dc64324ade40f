import { priceMedia, priceTokens } from '../billing/index.ts';
import type { ImageToolUsage } from '../ir/index.ts';
import type { CatalogModel, ProviderRegistry } from '../providers/index.ts';

/** The model OpenAI's image tool uses when the request names none (the Responses API reference). */
export const DEFAULT_IMAGE_TOOL_MODEL = 'gpt-image-1';

/**
 * Credits for what OpenAI's hosted image tool made and used in an answer of `served` (docs/billing.md):
 * its own tokens at the image model's token prices, and its images at a per-image price where the
 * model has one. The image model's prices are those of the serving provider: its listed model
 * (the config's pricing wins), else what its catalog knows of the id; 0 when neither prices it.
 */
export function priceImageTool(registry: ProviderRegistry, served: CatalogModel, usage: ImageToolUsage, factor: number): number {
  const id = usage.model ?? DEFAULT_IMAGE_TOOL_MODEL;
  const pricing = registry.get(`${served.provider.id}/${id}`)?.spec.pricing ?? served.provider.describe?.(id).pricing;
  return priceTokens(pricing, usage.inputTokens, usage.outputTokens, factor) + priceMedia(pricing, { images: usage.images }, factor);
}
