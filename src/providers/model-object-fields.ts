import { hasPrice } from '../catalog/index.ts';
import type { Modality, ModelPricing, ModelSpec } from '../plugin-kit/index.ts';

/** USD as OpenRouter writes it: a decimal string, never exponent notation (`0.00000015`). */
export function usdString(value: number): string {
  const fixed = value.toFixed(12);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** The per-token USD strings of a set of token prices (OpenRouter's names; the 1-hour cache write is ours). */
function tokenPriceStrings(prices: Pick<ModelPricing, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'cacheWrite1h'>, out: Record<string, unknown>): void {
  if (prices.input !== undefined) out.prompt = usdString(prices.input / 1_000_000);
  if (prices.output !== undefined) out.completion = usdString(prices.output / 1_000_000);
  if (prices.cacheRead !== undefined) out.input_cache_read = usdString(prices.cacheRead / 1_000_000);
  if (prices.cacheWrite !== undefined) out.input_cache_write = usdString(prices.cacheWrite / 1_000_000);
  if (prices.cacheWrite1h !== undefined) out.input_cache_write_1h = usdString(prices.cacheWrite1h / 1_000_000);
}

/**
 * OpenRouter-style pricing: USD strings per token (`prompt`, `completion`, `input_cache_read`,
 * `input_cache_write`, and `input_cache_write_1h` when the model declares a 1-hour cache-write
 * price), per hosted web search (`web_search`), per generated image (`image`), per minute of
 * transcribed audio (`audio_minute`) and per character of speech (`speech_character`);
 * long-context tiers as `tiers: [{ above_input_tokens, prompt, completion, input_cache_read,
 * input_cache_write, input_cache_write_1h }]` (the prices a tier sets). Null when the model has no price at all, a web
 * search price alone being none (`billing.unpriced` decides what that means).
 */
export function toPricingObject(pricing: ModelPricing | undefined): Record<string, unknown> | null {
  if (!pricing || !hasPrice(pricing)) return null;
  const out: Record<string, unknown> = {};
  tokenPriceStrings({ input: 0, output: 0, ...pricing }, out);
  if (pricing.webSearch !== undefined) out.web_search = usdString(pricing.webSearch);
  if (pricing.image !== undefined) out.image = usdString(pricing.image);
  if (pricing.audioMinute !== undefined) out.audio_minute = usdString(pricing.audioMinute);
  if (pricing.speechChars !== undefined) out.speech_character = usdString(pricing.speechChars / 1_000_000);
  if (pricing.perSecond !== undefined) out.per_second = usdString(pricing.perSecond);
  if (pricing.perJob !== undefined) out.per_job = usdString(pricing.perJob);
  if (pricing.tiers?.length) {
    out.tiers = pricing.tiers.map((tier) => {
      const shown: Record<string, unknown> = { above_input_tokens: tier.aboveInputTokens };
      tokenPriceStrings(tier, shown);
      return shown;
    });
  }
  return out;
}

/** What a model reads and writes: declared, else derived from its type and capabilities. */
export function modalitiesOf(spec: ModelSpec): { input: Modality[]; output: Modality[] } {
  const caps = spec.capabilities ?? [];
  const derived = (): { input: Modality[]; output: Modality[] } => {
    switch (spec.type) {
      case 'image_generation':
        return { input: caps.includes('image_edit') ? ['text', 'image'] : ['text'], output: ['image'] };
      case 'video_generation':
        return { input: ['text', 'image'], output: ['video'] };
      case 'music_generation':
        return { input: ['text'], output: ['audio'] };
      case 'threed_generation':
        return { input: ['text'], output: ['file'] };
      case 'audio':
        return caps.includes('speech') ? { input: ['text'], output: ['audio'] } : { input: ['audio'], output: ['text'] };
      default: {
        const input: Modality[] = ['text'];
        if (caps.includes('vision')) input.push('image');
        if (caps.includes('documents')) input.push('file');
        return { input, output: ['text'] };
      }
    }
  };
  const fallback = derived();
  return { input: spec.modalities?.input ?? fallback.input, output: spec.modalities?.output ?? fallback.output };
}

/** OpenRouter's `architecture`: modalities, and the `modality` summary (`text+image->text`). */
export function toArchitecture(spec: ModelSpec): Record<string, unknown> {
  const { input, output } = modalitiesOf(spec);
  return { modality: `${input.join('+')}->${output.join('+')}`, input_modalities: input, output_modalities: output };
}

/** The per-model request options a model declares (image sizes, qualities, styles, n range; speech voices). */
export function toOptionFields(spec: ModelSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (spec.sizes) out.sizes = spec.sizes;
  if (spec.qualities) out.qualities = spec.qualities;
  if (spec.styles) out.styles = spec.styles;
  if (spec.n) out.n = { min: spec.n.min, max: spec.n.max };
  if (spec.voices) out.voices = spec.voices;
  return out;
}
