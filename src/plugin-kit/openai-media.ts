import type { ProviderInstance } from './types.ts';
import { openaiAudioCalls } from './openai-audio.ts';
import { openaiImageCalls, type OpenAIMediaContext } from './openai-images.ts';

/** Image generation/edit and speech/transcription/translation against an OpenAI-compatible base URL. */
export function openaiMediaCalls(ctx: OpenAIMediaContext): Pick<ProviderInstance, 'images' | 'audio'> {
  return { images: openaiImageCalls(ctx), audio: openaiAudioCalls(ctx) };
}
