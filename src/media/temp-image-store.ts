import fs from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../util/index.ts';
import { randomToken } from '../util/index.ts';

/** A stored temporary image, ready to serve. */
export interface TempImage {
  data: Buffer;
  contentType: string;
  /** Unix ms after which the image is gone. */
  expiresAt: number;
}

interface Meta {
  contentType: string;
  expiresAt: number;
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };
const ID_LENGTH = 40;
const NAME = new RegExp(`^([A-Za-z0-9]{${ID_LENGTH}})(?:\\.(?:png|jpg|webp|gif))?$`);

/**
 * Images kept for `response_format: url`, under `<dataDir>/temp-images/`. Ids are 40 random
 * base62 characters (~238 bits), so knowing the URL is the only credential the route needs.
 * Each image has a sidecar `<id>.json` with its type and expiry, so a restart keeps them.
 */
export class TempImageStore {
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    this.dir = path.join(dataDir, 'temp-images');
  }

  /** Stores bytes; returns the file name to put in the URL (`<id>.<ext>`) and the expiry. */
  async put(data: Uint8Array, contentType: string): Promise<{ name: string; expiresAt: number }> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const id = randomToken(ID_LENGTH);
    const expiresAt = this.clock.now() + this.ttlMs;
    const meta: Meta = { contentType, expiresAt };
    await fs.writeFile(path.join(this.dir, `${id}.bin`), data, { mode: 0o600 });
    await fs.writeFile(path.join(this.dir, `${id}.json`), JSON.stringify(meta), { mode: 0o600 });
    return { name: `${id}.${EXTENSIONS[contentType] ?? 'png'}`, expiresAt };
  }

  /** The image behind a URL name, or undefined when unknown or expired (expired ones are removed). */
  async get(name: string): Promise<TempImage | undefined> {
    const id = NAME.exec(name)?.[1];
    if (!id) return undefined;
    let meta: Meta;
    try {
      meta = JSON.parse(await fs.readFile(path.join(this.dir, `${id}.json`), 'utf8')) as Meta;
    } catch {
      return undefined;
    }
    if (meta.expiresAt <= this.clock.now()) {
      await this.remove(id);
      return undefined;
    }
    try {
      return { data: await fs.readFile(path.join(this.dir, `${id}.bin`)), contentType: meta.contentType, expiresAt: meta.expiresAt };
    } catch {
      return undefined;
    }
  }

  /** Deletes every expired image; returns how many. */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    const now = this.clock.now();
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const id = name.slice(0, -5);
      try {
        const meta = JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as Meta;
        if (meta.expiresAt > now) continue;
      } catch {
        // unreadable sidecar: treat as expired
      }
      await this.remove(id);
      removed += 1;
    }
    return removed;
  }

  private async remove(id: string): Promise<void> {
    await fs.rm(path.join(this.dir, `${id}.bin`), { force: true });
    await fs.rm(path.join(this.dir, `${id}.json`), { force: true });
  }
}
