/** What a model is for, the one place the kinds are spelled out. `audio` covers speech, transcription and translation (see capabilities). */
export const MODEL_TYPES = ['chat', 'image_generation', 'audio', 'embedding', 'moderation', 'video_generation', 'music_generation', 'threed_generation'] as const;

/** What a model is for (MODEL_TYPES). */
export type ModelType = (typeof MODEL_TYPES)[number];
