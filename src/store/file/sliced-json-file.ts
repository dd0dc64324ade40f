import fs from 'node:fs';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { FILE_MODE } from '../../util/index.ts';
import { stringifyRecord } from '../stringify-record.ts';
import { writeText } from '../write-text.ts';

/** How long one slice of serialization may hold the event loop before the writer yields. */
const SLICE_MS = 2;
/** Bytes gathered before they are handed to the file. */
const FLUSH_BYTES = 1 << 20;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A lowdb adapter for `db.json` that never holds the event loop for long: the top-level
 * arrays are copied (a consistent snapshot of record references, records being replaced,
 * never mutated in place) and written one record per line in slices of a few milliseconds,
 * to a temp file (0600) that is fsynced and renamed over the old one. Reading is plain
 * JSON.parse of the whole file (at start, before the server listens).
 */
export class SlicedJsonFile<T extends object> implements Adapter<T> {
  constructor(readonly file: string) {}

  async read(): Promise<T | null> {
    const found = await this.readValue();
    return found ? (found.value as T) : null;
  }

  /** The parsed file, whatever it holds (`null` included); undefined when there is no file. */
  async readValue(): Promise<{ value: unknown } | undefined> {
    let text: string;
    try {
      text = await fs.promises.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return { value: JSON.parse(text) as unknown };
  }

  async write(data: T): Promise<void> {
    // The snapshot is taken before the first await: later pushes and splices do not show.
    const entries = Object.entries(data).map(([key, value]) => [key, Array.isArray(value) ? value.slice() : value] as const);
    const temp = `${this.file}.tmp-${process.pid}`;
    const handle = await fs.promises.open(temp, 'w', FILE_MODE);
    try {
      const out = new OutputBuffer(handle);
      let sliceStart = performance.now();
      await out.put('{');
      for (let i = 0; i < entries.length; i++) {
        const [key, value] = entries[i];
        await out.put(`${i === 0 ? '' : ','}\n  ${JSON.stringify(key)}: `);
        if (!Array.isArray(value)) {
          await out.put(stringifyRecord(value));
          continue;
        }
        await out.put('[');
        for (let j = 0; j < value.length; j++) {
          // Each record goes straight into the output buffer: no string outlives its record.
          const spilling = out.put(`${j === 0 ? '' : ','}\n    ${stringifyRecord(value[j])}`);
          if (spilling) await spilling;
          if ((j & 15) === 15 && performance.now() - sliceStart > SLICE_MS) {
            await yieldToLoop();
            sliceStart = performance.now();
          }
        }
        await out.put(value.length > 0 ? '\n  ]' : ']');
      }
      await out.put('\n}\n');
      await out.flush();
      await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    await handle.close();
    await fs.promises.rename(temp, this.file);
    await syncDir(path.dirname(this.file));
  }
}

/** Text encoded into one reused buffer and handed to the file a megabyte at a time. */
class OutputBuffer {
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;

  constructor(private readonly handle: fs.promises.FileHandle) {}

  /** Adds text; returns a promise only when the buffer had to go to the file first. */
  put(text: string): Promise<void> | undefined {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + text.length * 3 <= this.buffer.length) {
      this.used += this.buffer.write(text, this.used, 'utf8');
      return undefined;
    }
    return this.spill(text);
  }

  private async spill(text: string): Promise<void> {
    await this.flush();
    if (text.length * 3 > this.buffer.length) await writeText(this.handle, text);
    else this.used += this.buffer.write(text, this.used, 'utf8');
  }

  async flush(): Promise<void> {
    for (let done = 0; done < this.used; ) done += (await this.handle.write(this.buffer, done, this.used - done)).bytesWritten;
    this.used = 0;
  }
}

/** Makes a rename durable (the directory entry), where the platform allows it. */
export async function syncDir(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch {
    // not supported here (e.g. Windows); the rename itself is still atomic
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
