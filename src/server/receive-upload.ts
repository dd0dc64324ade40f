import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import busboy from 'busboy';
import type { H3Event } from 'h3';
import { GatewayError, isGatewayError, validationError } from '../errors/index.ts';
import { ensurePrivateDir, FILE_MODE } from '../util/index.ts';
import { ClientClosedError } from './body-errors.ts';
import { nodeOf } from './context.ts';
import { MULTIPART_LIMITS } from './read-multipart.ts';

/** The one file part of an upload, already on disk. */
export interface StagedFile {
  /** A temp file in the data dir's `uploads/`: the store takes it over, or the caller removes it. */
  path: string;
  bytes: number;
  /** Newline-separated lines (a last line without its newline counts). */
  lines: number;
  filename: string;
  /** The part's Content-Type, when it named one other than application/octet-stream. */
  mimeType?: string;
}

export interface ReceivedUpload {
  fields: Record<string, string>;
  file: StagedFile | undefined;
}

export interface UploadOptions {
  /** Where temp files go (`<dataDir>/uploads`). */
  dir: string;
  /** Largest file part; past it `tooLarge(limit)` is thrown. */
  maxFileBytes: number;
  /** The error for a file past `maxFileBytes` (413, or 429 when the account's quota is the bound). */
  tooLarge: () => GatewayError;
}

let staged = 0;
const prepared = new Set<string>();

/** The uploads dir, emptied once per process: temp files of a process that died are garbage. */
function uploadsDir(dir: string): string {
  if (!prepared.has(dir)) {
    ensurePrivateDir(dir);
    for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { force: true });
    prepared.add(dir);
  }
  return dir;
}

/** Counts bytes and newlines of what passes; fails past `limit`. */
class CountingStream extends Transform {
  bytes = 0;
  lines = 0;
  private last = 10;

  constructor(
    private readonly limit: number,
    private readonly over: () => GatewayError,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return done(this.over());
    let at = chunk.indexOf(10);
    while (at !== -1) {
      this.lines += 1;
      at = chunk.indexOf(10, at + 1);
    }
    if (chunk.length > 0) this.last = chunk[chunk.length - 1];
    done(null, chunk);
  }

  get totalLines(): number {
    return this.last === 10 ? this.lines : this.lines + 1;
  }
}

/**
 * Receives a multipart/form-data upload as it arrives: text fields in memory (bounded like any
 * multipart body), the one file part straight to a temp file, so memory per upload stays at a
 * few stream buffers whatever the file's size. Refuses a second file part, too many parts, long
 * names and values (422), a file past the bound (`tooLarge`), and a client that leaves.
 */
export async function receiveUpload(event: H3Event, options: UploadOptions): Promise<ReceivedUpload> {
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new GatewayError('bad_request', 'This endpoint takes a multipart/form-data body (with a boundary).');
  // The Node request when served by the Node server; a web body otherwise (in-process callers).
  // (`event.req.body` is not touched when there is a Node request: reading it would consume that.)
  const node = nodeOf(event)?.req;
  const req: Readable = node ?? webBody(event.req.body);
  const dir = uploadsDir(options.dir);
  const target = path.join(dir, `${process.pid}-${++staged}.part`);
  try {
    return await parse(req, type, target, options);
  } catch (error) {
    await fs.promises.rm(target, { force: true });
    // The rest of the body is read and dropped, so the answer reaches a client still sending.
    req.unpipe();
    req.resume();
    throw error;
  }
}

function webBody(body: ReadableStream<Uint8Array> | null): Readable {
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>) : Readable.from([]);
}

function parse(req: Readable, type: string, target: string, options: UploadOptions): Promise<ReceivedUpload> {
  return new Promise<ReceivedUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    const problems: Record<string, string> = {};
    let file: StagedFile | undefined;
    let writing: Promise<void> | undefined;
    let failed = false;
    let parser: busboy.Busboy;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      // The file part's stream ends with the parser (a client gone never ends it), so its temp file
      // is closed before the caller removes it: else the descriptor, and the file's disk space, stay.
      parser.destroy();
      void Promise.resolve(writing).catch(() => undefined).then(() => reject(error));
    };
    try {
      parser = busboy({
        headers: { 'content-type': type },
        limits: { parts: MULTIPART_LIMITS.parts, fieldNameSize: MULTIPART_LIMITS.nameChars, fieldSize: MULTIPART_LIMITS.textFieldChars * 4, files: 1 },
      });
    } catch (error) {
      throw new GatewayError('bad_request', `The multipart body could not be parsed: ${(error as Error).message}`);
    }
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated) problems[`${name.slice(0, 32)}…`] ??= `field names must be at most ${MULTIPART_LIMITS.nameChars} characters`;
      else if (info.valueTruncated || value.length > MULTIPART_LIMITS.textFieldChars) problems[name] ??= `must be at most ${MULTIPART_LIMITS.textFieldChars} characters`;
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        problems[name.slice(0, 64)] = 'unexpected file part (the file goes in the part named "file")';
        stream.resume();
        return;
      }
      const counter = new CountingStream(options.maxFileBytes, options.tooLarge);
      const filename = info.filename || 'upload';
      const mimeType = typeof info.mimeType === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(info.mimeType) && info.mimeType !== 'application/octet-stream' ? info.mimeType.toLowerCase() : undefined;
      writing = pipeline(stream, counter, fs.createWriteStream(target, { mode: FILE_MODE, flags: 'wx' })).then(() => {
        file = { path: target, bytes: counter.bytes, lines: counter.totalLines, filename };
        if (mimeType) file.mimeType = mimeType;
      });
      writing.catch((error: unknown) => {
        stream.resume();
        fail(error);
      });
    });
    parser.on('partsLimit', () => (problems.body = `must have at most ${MULTIPART_LIMITS.parts} parts`));
    parser.on('filesLimit', () => (problems.file = 'only one file part is accepted'));
    parser.on('error', (error: Error) => fail(new GatewayError('bad_request', `The multipart body could not be parsed: ${error.message.split('\n')[0]}`)));
    parser.on('close', () => {
      void (async () => {
        await writing;
        if (Object.keys(problems).length > 0) throw validationError(problems);
        return { fields, file };
      })().then(
        (received) => {
          if (!failed) resolve(received);
        },
        fail,
      );
    });
    req.once('close', () => {
      if (!req.readableEnded && !(req as Partial<IncomingMessage>).complete) fail(new ClientClosedError());
    });
    req.once('error', () => fail(new ClientClosedError()));
    req.pipe(parser);
  });
}

/** A new temp file's path in the uploads dir (`<dataDir>/uploads`, emptied once per process). */
export function stagedPath(dir: string): string {
  return path.join(uploadsDir(dir), `${process.pid}-${++staged}.part`);
}

/**
 * Appends a raw request body (one chunk of a resumable upload) to `target` as it arrives, so
 * memory stays at a few stream buffers; past `limit` bytes `tooLarge()` is thrown and the file
 * is cut back to its size before. Resolves the bytes appended.
 */
export async function appendRawBody(event: H3Event, target: string, limit: number, tooLarge: () => GatewayError): Promise<number> {
  const node = nodeOf(event)?.req;
  const req: Readable = node ?? webBody(event.req.body);
  const before = fs.existsSync(target) ? fs.statSync(target).size : 0;
  const counter = new CountingStream(limit, tooLarge);
  try {
    await pipeline(req, counter, fs.createWriteStream(target, { mode: FILE_MODE, flags: 'a' }));
    return counter.bytes;
  } catch (error) {
    await fs.promises.truncate(target, before).catch(() => undefined);
    req.unpipe();
    req.resume();
    if (isGatewayError(error)) throw error;
    throw new ClientClosedError();
  }
}
