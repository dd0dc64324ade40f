import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import type { ConversationsRepo } from '../repositories.ts';
import { renameTakenIds } from '../conversation-item-ids.ts';
import type { ConversationAppended, ConversationBounds, ConversationItemInput, ConversationItemsPage, ConversationItemsQuery, ConversationRecord, ConversationTurn } from '../types.ts';
import { readConversationIndex, readPlaces, removePlace, type ConversationIndex } from './conversation-index.ts';
import { bytesOf, emptyIndex, headerLine, itemsLine, pagePlaces, placeLine, writeConversationFile } from './conversation-lines.ts';
import { InProcessTurns } from './in-process-turns.ts';
import { writeText } from '../write-text.ts';
import { OwnedFileSizes } from './owned-file-sizes.ts';
import { syncDir } from './sliced-json-file.ts';

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const TEMP = /\.tmp-\d+-\d+$/;

/** Conversations whose index is kept (the most recently used), and their items together at most (the least recently used go first). */
const MAX_INDEXED = 64;
const MAX_INDEXED_ITEMS = 100_000;

/**
 * Conversations, one append-only file per conversation under `<dataDir>/conversations/` (0700,
 * files 0600): the first line is the conversation (`id`, `accountId`, `createdAt`, `metadata`),
 * each later line one change (`{"n":…,"bytes":…,"items":[…]}` an append, all its items in one line
 * so it lands whole or not at all; `{"metadata":{…}}`; `{"deleted":"<item id>","bytes":…}`). The
 * file is read once, a chunk at a time, into an index (the conversation, and where each item's
 * line is), kept for the conversations used lately: a change then writes its line at the end
 * without reading the file, and a page of items (or one item) reads the lines it returns only.
 * Once deleted items and replaced metadata outweigh what the conversation holds, the file is
 * rewritten without them (in lines of at most `LINE_TARGET` bytes, a new file renamed over it); a
 * file an earlier version rewrote (every item in one line) is rewritten so when first read. A line
 * a killed process left half written is not read and is cut off before the next change. Reads and
 * changes of one conversation run one at a time (a rewrite moves its lines). Each write is handed
 * to the kernel before it resolves; its fdatasync runs after, off the request path (flush waits
 * for it), as the stored responses' do. A kept index is checked against the file's size
 * before each use (one stat), so a file changed by hand is read again.
 */
export class FileConversationsRepo implements ConversationsRepo {
  readonly dir: string;
  private readonly pending = new Set<Promise<void>>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private counter = 0;
  /** Owner and file size of every conversation, and bytes per account (`storage.responsesQuotaBytes`). */
  private readonly sizes: OwnedFileSizes;
  private readonly turns = new InProcessTurns();
  /** Indexes of the conversations used lately, the most recent last. */
  private readonly indexes = new Map<string, ConversationIndex>();
  private readonly problem = (message: string) => this.onProblem(message);

  constructor(
    dataDir: string,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {
    this.dir = path.join(dataDir, 'conversations');
    ensurePrivateDir(this.dir);
    for (const name of fs.readdirSync(this.dir)) if (TEMP.test(name)) fs.rmSync(path.join(this.dir, name), { force: true });
    this.sizes = new OwnedFileSizes(this.dir, '.jsonl', 'conversations', (message) => this.onProblem(message));
  }

  /** Bytes of the account's conversation files (known from start-up on, kept by every change). */
  bytesOf(accountId: string): Promise<number> {
    return this.sizes.bytesOf(accountId);
  }

  create(record: Omit<ConversationRecord, 'itemCount' | 'itemBytes'>, items: ConversationItemInput[]): Promise<ConversationRecord> {
    if (!SAFE_ID.test(record.id)) return Promise.reject(new Error(`unsafe conversation id '${record.id}'`));
    return this.serially(record.id, async () => {
      const file = this.fileOf(record.id);
      const temp = `${file}.tmp-${process.pid}-${++this.counter}`;
      const handle = await fs.promises.open(temp, 'wx', FILE_MODE);
      const header = headerLine(record);
      const line = items.length > 0 ? itemsLine(items) : '';
      try {
        await handle.write(header);
        if (line !== '') await writeText(handle, line);
        await fs.promises.rename(temp, file);
      } catch (error) {
        await handle.close().catch(() => undefined);
        await fs.promises.rm(temp, { force: true });
        throw error;
      }
      const created: ConversationRecord = { ...record, itemCount: items.length, itemBytes: bytesOf(items) };
      const index = emptyIndex(created, Buffer.byteLength(header));
      if (line !== '') placeLine(index, items, Buffer.byteLength(line));
      this.remember(record.id, index);
      this.sizes.track(record.id, record.accountId, index.end);
      this.syncLater(record.id, handle, true);
      return { ...created };
    });
  }

  get(accountId: string, id: string): Promise<ConversationRecord | undefined> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      return index && { ...index.record };
    });
  }

  /** In this process (the file store has one): a hold lasts until released; `leaseMs` is a shared database's. */
  async claimTurn(accountId: string, id: string, _leaseMs: number): Promise<ConversationTurn | 'busy'> {
    return this.turns.claim(accountId, id);
  }

  items(accountId: string, id: string): Promise<Array<Record<string, unknown>> | undefined> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      return index && readPlaces(this.fileOf(id), index.items, this.problem);
    });
  }

  page(accountId: string, id: string, query: ConversationItemsQuery): Promise<ConversationItemsPage | 'no_item' | undefined> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      if (!index) return undefined;
      const found = pagePlaces(index.items, query);
      if (found === 'no_item') return found;
      const { places, hasMore } = found;
      return { data: await readPlaces(this.fileOf(id), places, this.problem), hasMore };
    });
  }

  item(accountId: string, id: string, itemId: string): Promise<Record<string, unknown> | 'not_found' | 'no_item'> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      if (!index) return 'not_found' as const;
      const place = index.items.find((entry) => entry.id === itemId);
      if (!place) return 'no_item' as const;
      return (await readPlaces(this.fileOf(id), [place], this.problem))[0] ?? ('no_item' as const);
    });
  }

  setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<ConversationRecord | undefined> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      if (!index) return undefined;
      await this.appendLine(id, index, `${JSON.stringify({ metadata })}\n`);
      index.record.metadata = metadata;
      this.compactIfWasteful(index);
      return { ...index.record };
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    return this.serially(id, async () => {
      if (!(await this.indexOf(accountId, id))) return false;
      try {
        await fs.promises.rm(this.fileOf(id));
        this.sizes.forget(id);
        this.indexes.delete(id);
        return true;
      } catch {
        return false;
      }
    });
  }

  append(
    accountId: string,
    id: string,
    given: ConversationItemInput[],
    bounds?: ConversationBounds,
    rename?: (entry: ConversationItemInput) => ConversationItemInput,
  ): Promise<ConversationAppended | 'not_found' | 'full'> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      if (!index) return 'not_found' as const;
      const { record } = index;
      const items = rename ? renameTakenIds(given, (itemId) => index.ids.has(itemId), rename) : given;
      const bytes = bytesOf(items);
      if (bounds && (record.itemCount + items.length > bounds.maxItems || record.itemBytes + bytes > bounds.maxBytes)) return 'full' as const;
      if (items.length > 0) {
        const line = itemsLine(items);
        const at = await this.appendLine(id, index, line);
        placeLine(index, items, Buffer.byteLength(line), at);
        record.itemCount += items.length;
        record.itemBytes += bytes;
      }
      return { ...record, added: items };
    });
  }

  deleteItem(accountId: string, id: string, itemId: string): Promise<ConversationRecord | 'not_found' | 'no_item'> {
    return this.serially(id, async () => {
      const index = await this.indexOf(accountId, id);
      if (!index) return 'not_found' as const;
      const at = index.items.findIndex((entry) => entry.id === itemId);
      if (at === -1) return 'no_item' as const;
      const [found] = await readPlaces(this.fileOf(id), [index.items[at]], this.problem);
      if (!found) {
        this.indexes.delete(id);
        throw new Error(`conversation ${id}: item ${itemId} cannot be read back; nothing was deleted`);
      }
      // The item went in as this text (JSON.stringify's), so its bytes are those of the text again.
      const bytes = Buffer.byteLength(JSON.stringify(found));
      await this.appendLine(id, index, `${JSON.stringify({ deleted: itemId, bytes })}\n`);
      removePlace(index, at);
      index.record.itemCount -= 1;
      index.record.itemBytes -= bytes;
      this.compactIfWasteful(index);
      return { ...index.record };
    });
  }

  /**
   * Every conversation with its items as JSON texts, in no particular order (`gateway store migrate`).
   * A file that is there but cannot be read stops the walk with an error naming it.
   */
  async *each(): AsyncGenerator<{ record: Omit<ConversationRecord, 'itemCount' | 'itemBytes'>; items: ConversationItemInput[] }> {
    const dir = await fs.promises.opendir(this.dir);
    for await (const entry of dir) {
      if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
      const id = entry.name.slice(0, -'.jsonl'.length);
      const read = await this.serially(id, async () => {
        const index = await this.indexOf(undefined, id);
        return index && { record: { ...index.record }, items: await readPlaces(this.fileOf(id), index.items, this.problem) };
      });
      if (!read) throw new Error(`conversation ${id} cannot be read (conversations/${entry.name}); fix or remove the file and run again`);
      const { itemCount: _count, itemBytes: _bytes, ...record } = read.record;
      yield { record, items: read.items.map((item) => ({ id: item.id as string, item: JSON.stringify(item) })) };
    }
  }

  /** Waits for writes and syncs in progress. */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.chains.values(), ...this.pending]);
    await Promise.allSettled([...this.pending]);
  }

  /** Waits for writes and syncs in progress and ends the start-up count of sizes. */
  async close(): Promise<void> {
    await this.flush();
    await this.sizes.stop();
  }

  /** Runs `work` after the conversation's earlier changes (its file is read and written by one change at a time). */
  private serially<T>(id: string, work: () => Promise<T>): Promise<T> {
    const before = this.chains.get(id) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(id, settled);
    void settled.then(() => {
      if (this.chains.get(id) === settled) this.chains.delete(id);
    });
    return run;
  }

  /**
   * The conversation's index when it is the account's (any account's: `undefined`): the one kept
   * while the file is the size it left it (one stat: a file changed by hand, or gone, is read
   * again), else the file read into one (and, when an earlier version put many items in one wide
   * line, rewritten first, so a page never reads more than a few lines' worth). Run inside `serially`.
   */
  private async indexOf(accountId: string | undefined, id: string): Promise<ConversationIndex | undefined> {
    if (!SAFE_ID.test(id)) return undefined;
    let index = this.indexes.get(id);
    if (index && (await fileSize(this.fileOf(id))) !== index.size) {
      this.indexes.delete(id);
      index = undefined;
    }
    if (index) {
      this.indexes.delete(id);
      this.indexes.set(id, index);
    } else {
      index = await readConversationIndex(this.fileOf(id), id, this.problem);
      if (!index) return undefined;
      this.remember(id, index);
      if (!index.damaged && index.widest > WIDE_LINE) {
        await this.rewrite(id, index).catch((error: unknown) =>
          this.onProblem(`cannot rewrite conversation ${id} in shorter lines: ${(error as Error).message}; the file is kept as it was`),
        );
        index = this.indexes.get(id) ?? index;
      }
    }
    return accountId === undefined || index.record.accountId === accountId ? index : undefined;
  }

  /** Keeps `index` as the most recently used, and lets the least recently used go past the bounds. */
  private remember(id: string, index: ConversationIndex): void {
    this.indexes.delete(id);
    this.indexes.set(id, index);
    let items = 0;
    for (const kept of this.indexes.values()) items += kept.items.length;
    for (const [oldest, kept] of this.indexes) {
      if (this.indexes.size <= 1 || (this.indexes.size <= MAX_INDEXED && items <= MAX_INDEXED_ITEMS)) break;
      this.indexes.delete(oldest);
      items -= kept.items.length;
    }
  }

  /**
   * A deleted item's line and a replaced metadata stay in the file, so its changes alone would grow it
   * without bound (items added and deleted, metadata set again and again), every read would read
   * them and the quota would count them: once they take more than the conversation itself (and
   * `COMPACT_SLACK`), the file is rewritten as what it holds, after this change and before the next
   * (its own turn in the conversation's order), off the request path.
   */
  private compactIfWasteful(index: ConversationIndex): void {
    const { record } = index;
    const holds = Buffer.byteLength(headerLine(record)) + record.itemBytes + record.itemCount + 64;
    if (index.end <= 2 * holds + COMPACT_SLACK) return;
    void this.serially(record.id, async () => {
      const current = await this.indexOf(record.accountId, record.id);
      // A line that cannot be read would be left out of the new file: such a file is kept whole.
      if (current && !current.damaged) await this.rewrite(record.id, current);
    }).catch((error: unknown) => this.onProblem(`cannot rewrite conversation ${record.id} without its deleted items: ${(error as Error).message}; the file is kept as it was`));
  }

  /**
   * The file rewritten as the conversation and its items (`writeConversationFile`: a new file, on
   * the disk before it takes the old one's name); its index replaces `index`. Run inside `serially`.
   */
  private async rewrite(id: string, index: ConversationIndex): Promise<void> {
    const file = this.fileOf(id);
    const next = await writeConversationFile(file, `${file}.tmp-${process.pid}-${++this.counter}`, index, this.problem);
    this.remember(id, next);
    this.sizes.track(id, next.record.accountId, next.end);
    await syncDir(this.dir);
  }

  /** One line at the end of the file, after cutting off a half-written one a killed process left; where the line starts. Run inside `serially`. */
  private async appendLine(id: string, index: ConversationIndex, line: string): Promise<number> {
    const file = this.fileOf(id);
    if (index.size !== index.end) {
      await fs.promises.truncate(file, index.end);
      index.size = index.end;
    }
    const handle = await fs.promises.open(file, 'a', FILE_MODE);
    let written: number;
    try {
      written = await writeText(handle, line);
    } catch (error) {
      await handle.close().catch(() => undefined);
      // What was written of the line is cut off by the next change (it is not a whole line): the file is read again for it.
      this.indexes.delete(id);
      throw error;
    }
    const at = index.end;
    index.end += written;
    index.size = index.end;
    this.sizes.track(id, index.record.accountId, index.end);
    this.syncLater(id, handle, false);
    return at;
  }

  /** A written file's bytes (fdatasync), then for a new file its name (the directory), off the request path. */
  private syncLater(id: string, handle: fs.promises.FileHandle, named: boolean): void {
    const synced = (async () => {
      try {
        await handle.datasync();
      } catch (error) {
        this.onProblem(`cannot sync conversation ${id} to the disk: ${(error as Error).message}`);
      } finally {
        await handle.close().catch(() => undefined);
      }
      if (named) await syncDir(this.dir);
    })().finally(() => this.pending.delete(synced));
    this.pending.add(synced);
  }

  private fileOf(id: string): string {
    return path.join(this.dir, `${id}.jsonl`);
  }
}

/** Bytes of deleted items and replaced metadata a conversation's file may hold beyond twice what it holds before it is rewritten. */
const COMPACT_SLACK = 64 * 1024;

/** A line of many items longer than this (an earlier version's rewrite) is rewritten when read. */
const WIDE_LINE = 1024 * 1024;

/** The file's size; -1 when it cannot be read (gone). */
async function fileSize(file: string): Promise<number> {
  try {
    return (await fs.promises.stat(file)).size;
  } catch {
    return -1;
  }
}
