import fs from 'node:fs';
import path from 'node:path';
import type { Adapter } from 'lowdb';
import { FILE_MODE } from '../util/private-files.ts';
import { stringifyRecord } from './stringify-record.ts';

/** How long one slice of serialization may hold the event loop before the writer yields. */
const SLICE_MS = 4;
/** Text gathered before it is handed to the file. */
const FLUSH_CHARS = 1 << 20;

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
      let buffer = '{';
      let sliceStart = performance.now();
      const spill = async () => {
        if (buffer.length > 0) await handle.write(buffer);
        buffer = '';
      };
      for (let i = 0; i < entries.length; i++) {
        const [key, value] = entries[i];
        buffer += `${i === 0 ? '' : ','}\n  ${JSON.stringify(key)}: `;
        if (!Array.isArray(value)) {
          buffer += stringifyRecord(value);
          continue;
        }
        buffer += '[';
        for (let j = 0; j < value.length; j++) {
          buffer += `${j === 0 ? '' : ','}\n    ${stringifyRecord(value[j])}`;
          if (buffer.length >= FLUSH_CHARS) await spill();
          if ((j & 63) === 63 && performance.now() - sliceStart > SLICE_MS) {
            await spill();
            await yieldToLoop();
            sliceStart = performance.now();
          }
        }
        buffer += value.length > 0 ? '\n  ]' : ']';
      }
      buffer += '\n}\n';
      await spill();
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
