import type { ModelSpec } from 'gateway/plugin-kit';
import { IMAGEN_MODELS } from './images.ts';

/*
 * Facts about Google's model ids for the plugin's `catalog.models`. Prices (cached and
 * thinking tokens included) come from the bundled catalog (@pydantic/genai-prices, provider
 * `google`); limits and capabilities from Google's model pages, since models.dev's snapshot has
 * no Google file. Claude on Vertex speaks Messages (`:rawPredict`), so its ids say so.
 * genai-prices has no Grounding with Google Search price, so a Gemini id's `webSearch` comes
 * from Google's pricing page (ai.google.dev/gemini-api/docs/pricing, docs/billing.md).
 */

const GEMINI_CAPS: ModelSpec['capabilities'] = ['streaming', 'function_calling', 'thinking', 'vision', 'documents', 'json_mode'];
const CLAUDE_CAPS: ModelSpec['capabilities'] = ['streaming', 'function_calling', 'thinking', 'vision', 'documents'];
const GEMINI_IO = { input: ['text' as const, 'image' as const, 'audio' as const, 'video' as const, 'file' as const], output: ['text' as const] };

function gemini(id: string, displayName: string, maxOutputTokens = 65_536, contextWindow = 1_048_576): ModelSpec {
  return { id, displayName, type: 'chat', capabilities: GEMINI_CAPS, modalities: GEMINI_IO, contextWindow, maxOutputTokens, formats: ['gemini'] };
}

function claude(id: string, maxOutputTokens: number): ModelSpec {
  return { id, type: 'chat', capabilities: CLAUDE_CAPS, contextWindow: 200_000, maxOutputTokens, formats: ['messages'] };
}

/** Gemini models served when the config lists none (AI Studio and Vertex). */
export const GEMINI_MODELS: ModelSpec[] = [
  gemini('gemini-2.5-pro', 'Gemini 2.5 Pro'),
  gemini('gemini-2.5-flash', 'Gemini 2.5 Flash'),
  gemini('gemini-2.5-flash-lite', 'Gemini 2.5 Flash-Lite'),
  gemini('gemini-3-pro-preview', 'Gemini 3 Pro Preview'),
  gemini('gemini-3-flash-preview', 'Gemini 3 Flash Preview'),
];

/** Claude models Vertex AI serves (ids with Vertex's `@date`; the undated form names the same model's facts). */
export const VERTEX_CLAUDE_MODELS: ModelSpec[] = [
  claude('claude-sonnet-4-5@20250929', 64_000),
  claude('claude-haiku-4-5@20251001', 64_000),
  claude('claude-opus-4-1@20250805', 32_000),
];

/**
 * Gemini's image models ("Nano Banana"): chat models whose answers hold images (a Chat client
 * asks with `modalities`), also served on the images endpoints at a price per image.
 */
function geminiImage(id: string, displayName: string, image: number): ModelSpec {
  return { ...gemini(id, displayName, 32_768, 65_536), capabilities: ['streaming', 'vision', 'thinking'], modalities: { input: ['text', 'image'], output: ['text', 'image'] }, pricing: { image } };
}

/** USD per 1K image as Google's pricing page listed them in November 2026 (~1,290 output tokens at $30 per million; Gemini 3 Pro Image $0.134). */
export const GEMINI_IMAGE_MODELS: ModelSpec[] = [geminiImage('gemini-2.5-flash-image', 'Gemini 2.5 Flash Image', 0.039), geminiImage('gemini-3-pro-image-preview', 'Gemini 3 Pro Image Preview', 0.134)];

/** A Veo model: one clip per job, billed per second of video; 16:9 and 9:16 at the resolutions it makes. */
function veo(id: string, displayName: string, perSecond: number, fullHd = true): ModelSpec {
  const sizes = fullHd ? ['1280x720', '720x1280', '1920x1080', '1080x1920'] : ['1280x720', '720x1280'];
  return { id, displayName, type: 'video_generation', pricing: { perSecond }, sizes };
}

/**
 * Veo video models (AI Studio and Vertex), USD per second of video with audio as Google's pricing
 * pages listed them in November 2026 (ai.google.dev/gemini-api/docs/pricing); a config's own
 * `pricing` replaces these.
 */
export const VEO_MODELS: ModelSpec[] = [
  veo('veo-3.1-generate-preview', 'Veo 3.1', 0.4),
  veo('veo-3.1-fast-generate-preview', 'Veo 3.1 Fast', 0.15),
  veo('veo-3.0-generate-001', 'Veo 3', 0.4),
  veo('veo-3.0-fast-generate-001', 'Veo 3 Fast', 0.15),
  veo('veo-2.0-generate-001', 'Veo 2', 0.35, false),
];

/** Facts for ids a config lists: the Gemini and Claude families above, undated too. */
export const GOOGLE_MODEL_FACTS: ModelSpec[] = [
  ...GEMINI_MODELS,
  gemini('gemini-2.0-flash', 'Gemini 2.0 Flash', 8_192),
  gemini('gemini-2.0-flash-lite', 'Gemini 2.0 Flash-Lite', 8_192),
  ...VERTEX_CLAUDE_MODELS,
  claude('claude-sonnet-4-5', 64_000),
  claude('claude-haiku-4-5', 64_000),
  claude('claude-opus-4-1', 32_000),
  claude('claude-opus-4-5', 64_000),
  claude('claude-sonnet-4', 64_000),
  ...GEMINI_IMAGE_MODELS,
  ...IMAGEN_MODELS,
  ...VEO_MODELS,
];

/**
 * Grounding with Google Search, USD per search as the gemini format counts them: Gemini 1.x and
 * 2.x are billed $35 per 1,000 grounded prompts (one search per grounded answer), Gemini 3 and
 * later $14 per 1,000 search queries (one per query). The same split as the format's count.
 */
function groundingPricing(id: string): { webSearch: number; webSearchesPerAnswer?: number } {
  // Per grounded prompt: one answer is billed one search at most, so a hold needs no more.
  return /^gemini-[12][.-]/.test(id) ? { webSearch: 0.035, webSearchesPerAnswer: 1 } : { webSearch: 0.014 };
}

/** Facts an id says about itself: embedding ids embed, Claude ids on Vertex speak Messages, Gemini ids the gemini format and their Google Search price. */
export function describeGoogleModel(id: string): Partial<ModelSpec> | undefined {
  if (id.startsWith('veo-')) return { type: 'video_generation' };
  // gemini-embedding-001, text-embedding-004, embedding-001: vectors, not chat.
  if (/(^|-)embedding(-|$)/.test(id)) return { type: 'embedding', capabilities: [], modalities: { input: ['text'], output: ['text'] } };
  if (id.startsWith('imagen-')) return { type: 'image_generation' };
  if (id.startsWith('claude-')) return { type: 'chat', capabilities: CLAUDE_CAPS, formats: ['messages'] };
  if (id.startsWith('gemini-')) return { type: 'chat', capabilities: GEMINI_CAPS, modalities: GEMINI_IO, formats: ['gemini'], pricing: groundingPricing(id) };
  return undefined;
}
