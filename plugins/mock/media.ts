import type { ModelSpec, ProviderInstance } from 'gateway/plugin-kit';
import { editImages, generateImages } from './image.ts';
import { speak } from './speech.ts';
import { transcribe } from './transcribe.ts';

/** The offline media models: images, speech, transcription and translation. */
export const MEDIA_MODELS: ModelSpec[] = [
  { id: 'image', type: 'image_generation', capabilities: ['image_edit'], pricing: { image: 0.01 }, displayName: 'Mock Image' },
  { id: 'tts', type: 'audio', capabilities: ['speech'], pricing: { speechChars: 15 }, displayName: 'Mock TTS' },
  { id: 'whisper', type: 'audio', capabilities: ['transcription', 'translation'], pricing: { audioMinute: 0.006 }, displayName: 'Mock Whisper' },
];

/** The media calls of a mock provider; they answer locally and never touch the network. */
export function mediaCalls(): Pick<ProviderInstance, 'images' | 'audio'> {
  return {
    images: { generate: async (call) => generateImages(call), edit: async (call) => editImages(call) },
    audio: { speech: async (call) => speak(call), transcribe: async (call) => transcribe(call) },
  };
}
