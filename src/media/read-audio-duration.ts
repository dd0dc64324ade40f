/**
 * Seconds of audio an upload's own header states (WAV, MP3, M4A/MP4, OGG/Opus, FLAC, WebM), read
 * by music-metadata without decoding audio; undefined when the format or header cannot be read.
 * The transcription routes hold a request's cost from it (docs/billing.md, the hold rule).
 */
export async function readAudioSeconds(data: Uint8Array): Promise<number | undefined> {
  if (data.byteLength === 0) return undefined;
  // Loaded on first use: only the transcription routes pay for the parser.
  const { parseBuffer } = await import('music-metadata');
  try {
    // No MIME type or file name: the bytes decide the format, not what the client labelled them.
    const { format } = await parseBuffer(data, { size: data.byteLength }, { duration: false, skipCovers: true, skipPostHeaders: true });
    const seconds = format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}
