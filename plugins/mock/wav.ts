/** What a WAV file says about itself. */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Length of the `data` chunk in bytes. */
  dataBytes: number;
  durationSeconds: number;
  /** The LIST/INFO `ICMT` comment, where mock/tts puts the spoken text. */
  comment?: string;
}

function riffChunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  // RIFF chunks are word-aligned: an odd body gets one pad byte not counted in its size.
  return Buffer.concat(body.length % 2 ? [head, body, Buffer.alloc(1)] : [head, body]);
}

/** A 16-bit PCM mono WAV; `comment` goes into a LIST/INFO ICMT chunk. */
export function encodeWav(pcm: Buffer, sampleRate: number, comment?: string): Buffer {
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0); // PCM
  fmt.writeUInt16LE(1, 2); // mono
  fmt.writeUInt32LE(sampleRate, 4);
  fmt.writeUInt32LE(sampleRate * 2, 8); // byte rate
  fmt.writeUInt16LE(2, 12); // block align
  fmt.writeUInt16LE(16, 14); // bits per sample
  const chunks = [riffChunk('fmt ', fmt)];
  if (comment !== undefined) {
    const text = Buffer.concat([Buffer.from(comment, 'utf8'), Buffer.alloc(1)]);
    chunks.push(riffChunk('LIST', Buffer.concat([Buffer.from('INFO', 'latin1'), riffChunk('ICMT', text)])));
  }
  chunks.push(riffChunk('data', pcm));
  return riffChunk('RIFF', Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]));
}

function readComment(list: Buffer): string | undefined {
  if (list.toString('latin1', 0, 4) !== 'INFO') return undefined;
  let offset = 4;
  while (offset + 8 <= list.length) {
    const id = list.toString('latin1', offset, offset + 4);
    const size = list.readUInt32LE(offset + 4);
    if (id === 'ICMT') return list.toString('utf8', offset + 8, offset + 8 + size).replace(/\0+$/, '');
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** Reads a RIFF/WAVE header; undefined when the bytes are not a WAV file. */
export function readWav(bytes: Uint8Array): WavInfo | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let offset = 12;
  let format: Omit<WavInfo, 'dataBytes' | 'durationSeconds' | 'comment'> | undefined;
  let comment: string | undefined;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('latin1', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = buf.subarray(offset + 8, Math.min(buf.length, offset + 8 + size));
    if (id === 'fmt ' && body.length >= 16) {
      format = { channels: body.readUInt16LE(2), sampleRate: body.readUInt32LE(4), bitsPerSample: body.readUInt16LE(14) };
    } else if (id === 'LIST') {
      comment = readComment(body) ?? comment;
    } else if (id === 'data' && format) {
      const frameBytes = format.channels * (format.bitsPerSample / 8) || 1;
      const dataBytes = body.length;
      return { ...format, dataBytes, durationSeconds: dataBytes / frameBytes / format.sampleRate, comment };
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}
