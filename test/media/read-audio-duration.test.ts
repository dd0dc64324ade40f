import { describe, expect, it } from 'vitest';
import { encodeMp3 } from '../../plugins/mock/mp3.ts';
import { encodeWav } from '../../plugins/mock/wav.ts';
import { readAudioSeconds } from '../../src/media/index.ts';

/** Silent 16-bit mono PCM of `seconds` at `rate`. */
const silence = (seconds: number, rate: number) => Buffer.alloc(Math.round(seconds * rate) * 2);

describe('readAudioSeconds (the transcription hold reads the upload header)', () => {
  it('reads a WAV header: data bytes over the byte rate', async () => {
    expect(await readAudioSeconds(encodeWav(silence(3, 8000), 8000))).toBe(3);
    expect(await readAudioSeconds(encodeWav(silence(0.5, 16_000), 16_000))).toBe(0.5);
  });

  it('bounds a WAV whose data chunk claims more than the file holds (a streamed 0xFFFFFFFF size)', async () => {
    const wav = encodeWav(silence(2, 8000), 8000);
    wav.writeUInt32LE(0xffff_ffff, 4);
    wav.writeUInt32LE(0xffff_ffff, wav.indexOf('data') + 4);
    expect(await readAudioSeconds(wav)).toBe(2);
  });

  it('reads an MP3 without a Xing header (CBR, from its frames and size), also behind an ID3 tag', async () => {
    // mock/tts's encoder: MPEG-2 Layer III, 24 kHz, 48 kbit/s; 2 s of PCM gives 2.064 s of frames.
    for (const comment of [undefined, 'an ID3 comment']) {
      const seconds = await readAudioSeconds(await encodeMp3(silence(2, 24_000), 24_000, comment));
      expect(seconds).toBeGreaterThanOrEqual(2);
      expect(seconds).toBeLessThan(2.1);
    }
  });

  it('says nothing for bytes it cannot read: text, a truncated header, nothing', async () => {
    expect(await readAudioSeconds(Buffer.from('hello world, this is not audio'))).toBeUndefined();
    expect(await readAudioSeconds(Buffer.from('RIFF....WAVEfmt '))).toBeUndefined();
    expect(await readAudioSeconds(new Uint8Array(0))).toBeUndefined();
  });
});
