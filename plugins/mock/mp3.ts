import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bitrate of mock/tts MP3s: plenty for a mono 24 kHz tone. */
const KBPS = 48;
/** Samples encoded per turn of the event loop (~1 s at 24 kHz, ~15 ms of CPU): long speech never stalls other requests. */
const SLICE = 1152 * 21;
/** The ID3 comment description that marks mock/tts's own transcript. */
const DESCRIPTION = 'gateway-mock-tts';

/** What an MP3 file says about itself. */
export interface Mp3Info {
  sampleRate: number;
  frames: number;
  durationSeconds: number;
  /** The text mock/tts put in its ID3 comment. */
  comment?: string;
}

function syncsafe(n: number): Buffer {
  return Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
}

function readSyncsafe(buf: Buffer, offset: number): number {
  return (buf[offset] << 21) | (buf[offset + 1] << 14) | (buf[offset + 2] << 7) | buf[offset + 3];
}

/** An ID3v2.4 tag with one UTF-8 COMM frame holding `text`. */
function id3Comment(text: string): Buffer {
  const body = Buffer.concat([Buffer.from([3]), Buffer.from('eng', 'latin1'), Buffer.from(DESCRIPTION + '\0', 'utf8'), Buffer.from(text, 'utf8')]);
  const frame = Buffer.concat([Buffer.from('COMM', 'latin1'), syncsafe(body.length), Buffer.alloc(2), body]);
  return Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([4, 0, 0]), syncsafe(frame.length), frame]);
}

/**
 * 16-bit little-endian mono PCM → MP3 (MPEG-2 Layer III at 24 kHz, 48 kbit/s) with a pure-JS
 * LAME port, in slices so the event loop keeps serving; `comment` goes into an ID3 COMM frame.
 */
export async function encodeMp3(pcm: Buffer, sampleRate: number, comment?: string): Promise<Buffer> {
  const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength >> 1);
  // Loaded on first use: a server that never speaks does not carry the encoder.
  const { Mp3Encoder } = await import('@breezystack/lamejs');
  const encoder = new Mp3Encoder(1, sampleRate, KBPS);
  const parts: Buffer[] = comment === undefined ? [] : [id3Comment(comment)];
  const take = (bytes: Uint8Array) => {
    if (bytes.length > 0) parts.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };
  for (let offset = 0; offset < samples.length; offset += SLICE) {
    if (offset > 0) await nextTurn();
    take(encoder.encodeBuffer(samples.subarray(offset, offset + SLICE)));
  }
  take(encoder.flush());
  return Buffer.concat(parts);
}

const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** An MPEG audio Layer III frame header at `offset`: its length and sample rate, or undefined. */
function frameAt(buf: Buffer, offset: number): { length: number; sampleRate: number; samples: number } | undefined {
  if (offset + 4 > buf.length || buf[offset] !== 0xff || (buf[offset + 1] & 0xe0) !== 0xe0) return undefined;
  const version = (buf[offset + 1] >> 3) & 3; // 3 = MPEG-1, 2 = MPEG-2, 0 = MPEG-2.5
  const layer = (buf[offset + 1] >> 1) & 3; // 1 = Layer III
  const bitrateIndex = buf[offset + 2] >> 4;
  const rateIndex = (buf[offset + 2] >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const mpeg1 = version === 3;
  const kbps = (mpeg1 ? BITRATES_V1_L3 : BITRATES_V2_L3)[bitrateIndex];
  const sampleRate = SAMPLE_RATES[version][rateIndex];
  const padding = (buf[offset + 2] >> 1) & 1;
  const length = Math.floor(((mpeg1 ? 144 : 72) * kbps * 1000) / sampleRate) + padding;
  return { length, sampleRate, samples: mpeg1 ? 1152 : 576 };
}

function readComment(tag: Buffer): string | undefined {
  let offset = 10;
  const end = 10 + readSyncsafe(tag, 6);
  while (offset + 10 <= Math.min(end, tag.length)) {
    const id = tag.toString('latin1', offset, offset + 4);
    const size = readSyncsafe(tag, offset + 4);
    const body = tag.subarray(offset + 10, offset + 10 + size);
    if (id === 'COMM' && body[0] === 3) {
      const text = body.subarray(4);
      const nul = text.indexOf(0);
      if (nul >= 0 && text.toString('utf8', 0, nul) === DESCRIPTION) return text.toString('utf8', nul + 1);
    }
    if (size === 0) break;
    offset += 10 + size;
  }
  return undefined;
}

/** Reads an MP3 (optional ID3v2 tag, then Layer III frames); undefined when the bytes are not one. */
export function readMp3(bytes: Uint8Array): Mp3Info | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  let comment: string | undefined;
  if (buf.length >= 10 && buf.toString('latin1', 0, 3) === 'ID3') {
    offset = 10 + readSyncsafe(buf, 6);
    comment = readComment(buf.subarray(0, offset));
  }
  let frames = 0;
  let samples = 0;
  let sampleRate = 0;
  for (let frame = frameAt(buf, offset); frame; frame = frameAt(buf, offset)) {
    frames += 1;
    samples += frame.samples;
    sampleRate = frame.sampleRate;
    offset += frame.length;
  }
  if (frames === 0) return undefined;
  return { sampleRate, frames, durationSeconds: samples / sampleRate, comment };
}
