import type { ModelSpec } from './types.ts';

/*
 * What OpenAI's media models accept and cost where the bundled catalog has no answer:
 * @pydantic/genai-prices prices chat, gpt-image (per token), whisper-1 and the gpt-4o
 * transcribe/tts models, but not DALL·E or tts-1; models.dev lists no media model at all.
 * Sources: OpenAI's API reference (images, audio) and pricing page. docs/models.md says
 * how to override any of it from the config.
 */

/** Voices of tts-1 and tts-1-hd. */
const TTS_VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'];
/** gpt-4o-mini-tts adds these. */
const GPT_TTS_VOICES = [...TTS_VOICES, 'ballad', 'verse', 'marin', 'cedar'];

const IMAGE_OUT = { input: ['text' as const], output: ['image' as const] };
const IMAGE_EDIT = { input: ['text' as const, 'image' as const], output: ['image' as const] };
const SPEECH = { input: ['text' as const], output: ['audio' as const] };
const TRANSCRIBE = { input: ['audio' as const], output: ['text' as const] };

const GPT_IMAGE: Omit<ModelSpec, 'id'> = {
  type: 'image_generation',
  capabilities: ['image_edit'],
  modalities: IMAGE_EDIT,
  sizes: ['auto', '1024x1024', '1536x1024', '1024x1536'],
  qualities: ['auto', 'low', 'medium', 'high'],
  n: { min: 1, max: 10 },
};

/** Facts about OpenAI model ids for the `openai` plugin's `catalog.models`. */
export const OPENAI_MODEL_FACTS: ModelSpec[] = [
  // models.dev says these reason; OpenAI refuses reasoning_effort on them (400 unsupported_parameter).
  { id: 'gpt-5-chat-latest', capabilities: ['streaming', 'vision'] },
  { id: 'gpt-5-chat', capabilities: ['streaming', 'vision'] },
  { id: 'gpt-image-1', ...GPT_IMAGE },
  { id: 'gpt-image-1-mini', ...GPT_IMAGE },
  // Newer gpt-image models: type only; their options pass through to the upstream unchecked.
  { id: 'gpt-image-1.5', type: 'image_generation', capabilities: ['image_edit'], modalities: IMAGE_EDIT },
  { id: 'gpt-image-2', type: 'image_generation', capabilities: ['image_edit'], modalities: IMAGE_EDIT },
  {
    id: 'dall-e-3',
    type: 'image_generation',
    capabilities: [],
    modalities: IMAGE_OUT,
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    qualities: ['standard', 'hd'],
    styles: ['vivid', 'natural'],
    n: { min: 1, max: 1 },
    // Standard quality at 1024x1024; hd and the wide sizes cost more (override in the config).
    pricing: { image: 0.04 },
  },
  {
    id: 'dall-e-2',
    type: 'image_generation',
    capabilities: ['image_edit'],
    modalities: IMAGE_EDIT,
    sizes: ['256x256', '512x512', '1024x1024'],
    qualities: ['standard'],
    n: { min: 1, max: 10 },
    // At 1024x1024; 512x512 is $0.018 and 256x256 $0.016.
    pricing: { image: 0.02 },
  },
  { id: 'tts-1', type: 'audio', capabilities: ['speech'], modalities: SPEECH, voices: TTS_VOICES, pricing: { speechChars: 15 } },
  { id: 'tts-1-hd', type: 'audio', capabilities: ['speech'], modalities: SPEECH, voices: TTS_VOICES, pricing: { speechChars: 30 } },
  // Token-priced by the catalog, but the speech endpoint reports no usage: OpenAI's estimate of
  // $0.015 a minute of speech, at about 1,000 characters a minute, is billed per character.
  { id: 'gpt-4o-mini-tts', type: 'audio', capabilities: ['speech'], modalities: SPEECH, voices: GPT_TTS_VOICES, pricing: { speechChars: 15 } },
  { id: 'whisper-1', type: 'audio', capabilities: ['transcription', 'translation'], modalities: TRANSCRIBE },
  { id: 'gpt-4o-transcribe', type: 'audio', capabilities: ['transcription'], modalities: TRANSCRIBE },
  { id: 'gpt-4o-mini-transcribe', type: 'audio', capabilities: ['transcription'], modalities: TRANSCRIBE },
  { id: 'gpt-transcribe', type: 'audio', capabilities: ['transcription'], modalities: TRANSCRIBE },
  { id: 'text-embedding-3-small', type: 'embedding', capabilities: [], modalities: { input: ['text'], output: ['text'] } },
  { id: 'text-embedding-3-large', type: 'embedding', capabilities: [], modalities: { input: ['text'], output: ['text'] } },
  { id: 'text-embedding-ada-002', type: 'embedding', capabilities: [], modalities: { input: ['text'], output: ['text'] } },
  // Free on OpenAI; the omni models read images too (text-moderation-* is text only).
  { id: 'omni-moderation-latest', type: 'moderation', capabilities: [], modalities: { input: ['text', 'image'], output: ['text'] }, pricing: { input: 0 } },
  { id: 'omni-moderation-2024-09-26', type: 'moderation', capabilities: [], modalities: { input: ['text', 'image'], output: ['text'] }, pricing: { input: 0 } },
  { id: 'text-moderation-latest', type: 'moderation', capabilities: [], modalities: { input: ['text'], output: ['text'] }, pricing: { input: 0 } },
  { id: 'text-moderation-stable', type: 'moderation', capabilities: [], modalities: { input: ['text'], output: ['text'] }, pricing: { input: 0 } },
];
