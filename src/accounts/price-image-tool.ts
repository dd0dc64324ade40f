import { priceMedia, priceTokens } from '../billing/index.ts';
import type { ImageToolRequest } from '../formats/index.ts';
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

/**
 * The image model's output tokens for one 1024×1024 image at each quality (OpenAI's table for
 * the GPT Image models); a size scales them by its area (1024×1536: 1.5×, as the table's 6,240).
 */
const TOKENS_PER_MEGAPIXEL: Readonly<Record<string, number>> = { low: 272, medium: 1056, high: 4160 };
/** `auto` or an unknown quality: the dearest. */
const WORST_QUALITY = 4160;
/** `auto` or an unreadable size: the largest the tool takes (1536×1024, 1.5 × 1024²). */
const WORST_AREA = 1.5;
/** Output tokens a partial image (a streamed preview) adds. */
const PARTIAL_IMAGE_TOKENS = 100;

/** A size's area in units of 1024×1024 (`1536x1024` → 1.5); the worst for `auto` or anything unreadable. */
function areaOf(size: string | undefined): number {
  const match = size === undefined ? null : /^(\d{2,5})x(\d{2,5})$/.exec(size);
  return match ? (Number(match[1]) * Number(match[2])) / (1024 * 1024) : WORST_AREA;
}

/**
 * Credits the hold keeps for a request's `image_generation` tool (docs/billing.md, the hold
 * rule): each image it may make at the output tokens its quality and size cost (the dearest for
 * `auto`), its partial images, the request's input bound as that image call's input (each call
 * reads its prompt), and a per-image price where the image model has one — at the dearest of the
 * providers that may serve over Responses (where the tool runs). Priced as `priceImageTool`
 * prices the settlement, the calls' usage summed, so the hold is never below it.
 */
export function holdImageTool(registry: ProviderRegistry, candidates: readonly CatalogModel[], tool: ImageToolRequest, inputTokens: number, factor: number): number {
  // An own key only (a quality named 'constructor' is no price), and counts kept finite: a NaN or
  // an Infinity × 0 here would make the hold NaN, which passes the balance check and poisons it.
  const quality = tool.quality ?? 'auto';
  const tokens = Object.hasOwn(TOKENS_PER_MEGAPIXEL, quality) ? TOKENS_PER_MEGAPIXEL[quality]! : WORST_QUALITY;
  const calls = Math.min(tool.calls, Number.MAX_SAFE_INTEGER);
  const perImage = Math.ceil(tokens * areaOf(tool.size)) + Math.min(tool.partialImages ?? 0, Number.MAX_SAFE_INTEGER) * PARTIAL_IMAGE_TOKENS;
  // The `calls` image calls' usage as tool_usage.image_gen reports it, summed (each call reads its
  // prompt), priced as the settlement prices it: a tiered price at the tier of the summed input.
  const usage: ImageToolUsage = { images: calls, inputTokens: inputTokens * calls, outputTokens: perImage * calls };
  if (tool.model !== undefined) usage.model = tool.model;
  let most = 0;
  // Only an upstream that speaks Responses runs the tool; another makes its images itself (priced as its tokens) or drops the tool.
  for (const served of candidates) if (served.formats.includes('responses')) most = Math.max(most, priceImageTool(registry, served, usage, factor));
  return most;
}
