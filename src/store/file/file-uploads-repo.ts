import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { FilesRepo, UploadSession, UploadsRepo } from '../repositories.ts';
import type { FileRecord } from '../types.ts';

/** An upload of the file store: the session, and the file its bytes are in once the first chunk came. */
interface Held {
  session: UploadSession;
  path?: string;
  /** The chunk being copied into `path`, if any: `finish` waits for it. */
  writing?: Promise<void>;
}

/**
 * Resumable uploads on the file store: in this process (the data dir has one), each one's bytes
 * in the file its first chunk was staged in (under the data dir), later chunks appended to it;
 * `finish` moves that file into the files store. A restart forgets them (the SDK starts again).
 */
export class FileUploadsRepo implements UploadsRepo {
  private readonly held = new Map<string, Held>();

  constructor(private readonly files: FilesRepo) {}

  async start(session: UploadSession): Promise<void> {
    this.held.set(session.id, { session: { ...session } });
  }

  async get(accountId: string, id: string, now: number): Promise<UploadSession | undefined> {
    const held = this.live(accountId, id, now);
    return held && { ...held.session, file: { ...held.session.file } };
  }

  async append(accountId: string, id: string, offset: number, staged: string, now: number): Promise<number | undefined> {
    try {
      const bytes = (await fs.promises.stat(staged)).size;
      // Checked and claimed in one step (no wait between): a chunk at the same offset meanwhile finds
      // the offset moved on. The next offset is not taken while a chunk is still being written: two
      // appends to the file at once would interleave (it is the client's to send it again).
      const held = this.live(accountId, id, now);
      if (!held || held.session.received !== offset || held.writing !== undefined) return undefined;
      held.session.received += bytes;
      if (held.path === undefined) {
        held.path = staged;
        staged = '';
        return offset + bytes;
      }
      const writing = pipeline(fs.createReadStream(staged), fs.createWriteStream(held.path, { flags: 'a' }));
      held.writing = writing.catch(() => undefined);
      try {
        await writing;
      } catch (error) {
        // Back to the bytes before this chunk, so the same chunk may come again.
        await fs.promises.truncate(held.path, offset).catch(() => undefined);
        held.session.received -= bytes;
        throw error;
      } finally {
        held.writing = undefined;
      }
      return offset + bytes;
    } finally {
      if (staged !== '') await fs.promises.rm(staged, { force: true });
    }
  }

  async finish(accountId: string, id: string, file: FileRecord, now: number): Promise<boolean> {
    const held = this.live(accountId, id, now);
    await held?.writing;
    if (!held || held.session.received !== held.session.file.bytes || this.held.get(id) !== held) return false;
    this.held.delete(id);
    if (held.path === undefined) await this.files.create(file, new Uint8Array());
    else await this.files.createFromFile(file, held.path);
    return true;
  }

  async reservedBy(accountId: string, now: number): Promise<{ uploads: number; bytes: number }> {
    let bytes = 0;
    let uploads = 0;
    for (const { session } of this.held.values()) {
      if (session.file.accountId !== accountId || session.expiresAt <= now) continue;
      uploads += 1;
      bytes += session.file.bytes;
    }
    return { uploads, bytes };
  }

  async purgeExpired(now: number): Promise<number> {
    let removed = 0;
    for (const [id, held] of this.held) {
      if (held.session.expiresAt > now) continue;
      this.held.delete(id);
      if (held.path !== undefined) await fs.promises.rm(held.path, { force: true });
      removed += 1;
    }
    return removed;
  }

  private live(accountId: string, id: string, now: number): Held | undefined {
    const held = this.held.get(id);
    return held && held.session.file.accountId === accountId && held.session.expiresAt > now ? held : undefined;
  }
}
