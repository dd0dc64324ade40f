import { describe, expect, it } from 'vitest';
import { encodeWav, readWav } from '../../../plugins/mock/wav.ts';

describe('mock WAV writer and reader', () => {
  it('writes a canonical RIFF/WAVE PCM header', () => {
    const pcm = Buffer.alloc(2400 * 2);
    const wav = encodeWav(pcm, 24_000);
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt32LE(16)).toBe(16);
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    expect(wav.readUInt32LE(24)).toBe(24_000);
    expect(wav.readUInt32LE(28)).toBe(48_000); // byte rate
    expect(wav.readUInt16LE(32)).toBe(2); // block align
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString('latin1', 36, 40)).toBe('data');
    expect(wav.readUInt32LE(40)).toBe(pcm.length);
    expect(wav.length).toBe(44 + pcm.length);
  });

  it('reads duration and the LIST/INFO comment back, odd-length text padded', () => {
    const wav = encodeWav(Buffer.alloc(24_000 * 2 * 3), 24_000, 'héllo wörld!');
    expect(wav.length % 2).toBe(0);
    const info = readWav(wav);
    expect(info).toMatchObject({ sampleRate: 24_000, channels: 1, bitsPerSample: 16, dataBytes: 144_000, durationSeconds: 3, comment: 'héllo wörld!' });
  });

  it('returns undefined for bytes that are not WAV', () => {
    expect(readWav(Buffer.from('ID3 this is an mp3, honest'))).toBeUndefined();
  });
});
