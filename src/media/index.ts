/** Media: image and audio requests, transcript rendering, temporary images and the Media Library. */
export { callMedia, mediaCandidates, mapMediaError, supportsTask, planMediaRoute, planCandidates, type MediaTask } from './call-media.ts';
export { decodeImageRequest, parseSize, IMAGE_LIMITS, type ImageRequest, type ImageResponseFormat } from './decode-image-request.ts';
export {
  decodeSpeechRequest, decodeTranscriptionForm, AUDIO_CONTENT_TYPES, AUDIO_FORMATS, SPEECH_LIMITS, TRANSCRIPTION_LIMITS, TRANSCRIPT_FORMATS, VOICES,
  type SpeechRequest, type TranscriptionRequest, type TranscriptFormat, type UploadedFile,
} from './decode-audio-request.ts';
export {
  decodeListQuery, decodeCreateBody, decodePatchBody, MEDIA_TYPES, MEDIA_STATUSES, PAGING,
  type MediaListQuery, type MediaCreateInput, type MediaPatch,
} from './decode-media-request.ts';
export {
  createMedia, createWithinLimits, pendingRecord, deleteMedia, oldestAlive, getMedia, libraryUsage, listMedia, listMediaRecords, updateMedia, purgeExpiredMedia, recordCompletedImage, viewMedia,
  MEDIA_RETENTION_SECONDS, type MediaView, type MediaListEnvelope, type MediaLibraryDeps, type MediaLibraryWriter, type CompletedImageInput,
} from './library.ts';
export { MEDIA_LIMITS, recordBytes, type LibraryUsage } from './media-limits.ts';
export { checkTranscript, renderTranscript, renderTranscriptEvents, renderSrt, renderVtt, formatTimestamp, type RenderedTranscript } from './render-transcript.ts';
export { renderImageEvents } from './render-image-events.ts';
export { renderSpeechEvents } from './render-speech-events.ts';
export { TempImageStore, type TempImage } from './temp-image-store.ts';
export { createMediaRuntime, type MediaRuntime } from './media-runtime.ts';
export { parseMediaConfig, mediaConfigSchema, type MediaConfig } from './media-config.ts';
export { readPngSize } from './read-image-size.ts';
export { readAudioSeconds } from './read-audio-duration.ts';
export { fitImageOptions, imageOptionProblems } from './check-image-options.ts';
export { checkImageResult, firstImages } from './check-image-result.ts';
export { NoMediaOutput, isNoMediaOutput } from './no-media-output.ts';
export { fileField, textField } from './decode-audio-request.ts';
export { numericField } from './decode-image-request.ts';
export { decodeEmbeddingRequest, embeddingAttempt, embeddingVectors, shareInputTokens, EMBEDDING_LIMITS, type EmbeddingRequest } from './decode-embedding-request.ts';
export { decodeModerationRequest, moderationAttempt, DEFAULT_MODERATION_MODEL, type ModerationRequest } from './decode-moderation-request.ts';
