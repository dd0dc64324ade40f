import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir, FILE_MODE } from '../../util/index.ts';
import type { ConversationsRepo } from '../repositories.ts';
import { renameTakenIds } from '../conversation-item-ids.ts';
import type { ConversationAppended, ConversationBounds, ConversationItemInput, ConversationRecord, ConversationTurn } from '../types.ts';
import { InProcessTurns } from './in-process-turns.ts';
import { writeText } from '../write-text.ts';
import { OwnedFileSizes } from './owned-file-sizes.ts';
import { syncDir } from './sliced-json-file.ts';

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;
const TEMP = /\.tmp-\d+-\d+$/;

/** A conversation file read back: the record, its items in order, and how many bytes of the file are whole lines. */
interface Loaded {
  record: ConversationRecord;
  /** Parsed only by a full load. */
  items: Array<{ id: string; item: Record<string, unknown> }>;
  wholeBytes: number;
  size: number;
  /** The file's bytes as read. */
  buffer: Buffer;
  /** A line (a whole one) could not be read: the file is kept as it is for whoever repairs it, never rewritten. */
  damaged: boolean;
}

/**
 * Conversations, one append-only file per conversation under `<dataDir>/conversations/` (0700,
 * files 0600): the first line is the conversation (`id`, `accountId`, `createdAt`, `metadata`),
 * each later line one change (`{"items":[…]}` an append, all its items in one line so it lands
 * whole or not at all; `{"metadata":{…}}`; `{"deleted":"<item id>"}`). A change writes one line
 * at the end, never the items before it (once deleted items and replaced metadata outweigh what the
 * conversation holds, the file is rewritten without them: a new file renamed over it); a line a killed process left half written is not read
 * and is cut off before the next append. Changes to one conversation run one at a time. Each
 * write is handed to the kernel before it resolves; its fdatasync runs after, off the request
 * path (flush waits for it), as the stored responses' do.
 */
export class FileConversationsRepo implements ConversationsRepo {
  readonly dir: string;
  private readonly pending = new Set<Promise<void>>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private counter = 0;
  /** Owner and file size of every conversation, and bytes per account (`storage.responsesQuotaBytes`). */
  private readonly sizes: OwnedFileSizes;
  private readonly turns = new InProcessTurns();

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
      this.sizes.track(record.id, record.accountId, Buffer.byteLength(header) + Buffer.byteLength(line));
      this.syncLater(record.id, handle, true);
      return { ...record, itemCount: items.length, itemBytes: bytesOf(items) };
    });
  }

  async get(accountId: string, id: string): Promise<ConversationRecord | undefined> {
    return (await this.load(accountId, id, false))?.record;
  }

  /** In this process (the file store has one): a hold lasts until released; `leaseMs` is a shared database's. */
  async claimTurn(accountId: string, id: string, _leaseMs: number): Promise<ConversationTurn | 'busy'> {
    return this.turns.claim(accountId, id);
  }

  async items(accountId: string, id: string): Promise<Array<Record<string, unknown>> | undefined> {
    return (await this.load(accountId, id))?.items.map((entry) => entry.item);
  }

  setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<ConversationRecord | undefined> {
    return this.serially(id, async () => {
      const loaded = await this.load(accountId, id, false);
      if (!loaded) return undefined;
      const size = await this.appendLine(id, loaded, `${JSON.stringify({ metadata })}\n`);
      const record = { ...loaded.record, metadata };
      this.compactIfWasteful(record, size);
      return record;
    });
  }

  delete(accountId: string, id: string): Promise<boolean> {
    return this.serially(id, async () => {
      if (!(await this.load(accountId, id, false))) return false;
      try {
        await fs.promises.rm(this.fileOf(id));
        this.sizes.forget(id);
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
      const loaded = await this.load(accountId, id, false);
      if (!loaded) return 'not_found' as const;
      const { record } = loaded;
      const items = rename ? renameTakenIds(given, await this.takenIds(accountId, id, loaded, given), rename) : given;
      const bytes = bytesOf(items);
      if (bounds && (record.itemCount + items.length > bounds.maxItems || record.itemBytes + bytes > bounds.maxBytes)) return 'full' as const;
      if (items.length > 0) await this.appendLine(id, loaded, itemsLine(items));
      return { ...record, itemCount: record.itemCount + items.length, itemBytes: record.itemBytes + bytes, added: items };
    });
  }

  /**
   * Which of `items`' ids the conversation holds. An item is kept as JSON.stringify's text, so one
   * with id X has `"id":"X"` in the file: the file is read once for those (however many items are
   * added), and the items are parsed only when one is there.
   */
  private async takenIds(accountId: string, id: string, loaded: Loaded, items: readonly ConversationItemInput[]): Promise<(itemId: string) => boolean> {
    if (!namesAnyId(loaded.buffer, new Set(items.map((entry) => entry.id)))) return () => false;
    const full = await this.load(accountId, id);
    const ids = new Set(full?.items.map((entry) => entry.id));
    return (itemId) => ids.has(itemId);
  }

  deleteItem(accountId: string, id: string, itemId: string): Promise<ConversationRecord | 'not_found' | 'no_item'> {
    return this.serially(id, async () => {
      const loaded = await this.load(accountId, id);
      if (!loaded) return 'not_found' as const;
      const found = loaded.items.find((entry) => entry.id === itemId);
      if (!found) return 'no_item' as const;
      // The item went in as this text (JSON.stringify's), so its bytes are those of the text again.
      const bytes = Buffer.byteLength(JSON.stringify(found.item));
      const size = await this.appendLine(id, loaded, `${JSON.stringify({ deleted: itemId, bytes })}\n`);
      const record = { ...loaded.record, itemCount: loaded.record.itemCount - 1, itemBytes: loaded.record.itemBytes - bytes };
      this.compactIfWasteful(record, size);
      return record;
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
      const loaded = await this.load(undefined, id);
      if (!loaded) throw new Error(`conversation ${id} cannot be read (conversations/${entry.name}); fix or remove the file and run again`);
      const { itemCount: _count, itemBytes: _bytes, ...record } = loaded.record;
      yield { record, items: loaded.items.map((item) => ({ id: item.id, item: JSON.stringify(item.item) })) };
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
   * A deleted item's line and a replaced metadata stay in the file, so its changes alone would grow it
   * without bound (items added and deleted, metadata set again and again), every read would read
   * them and the quota would count them: once they take more than the conversation itself (and
   * `COMPACT_SLACK`), the file is rewritten as what it holds, after this change and before the next
   * (its own turn in the conversation's order), off the request path.
   */
  private compactIfWasteful(record: ConversationRecord, size: number): void {
    const holds = Buffer.byteLength(headerLine(record)) + record.itemBytes + record.itemCount + 64;
    if (size <= 2 * holds + COMPACT_SLACK) return;
    void this.serially(record.id, () => this.compact(record.accountId, record.id)).catch((error: unknown) =>
      this.onProblem(`cannot rewrite conversation ${record.id} without its deleted items: ${(error as Error).message}; the file is kept as it was`),
    );
  }

  /** The file rewritten as the conversation and its items (a new file, on the disk before it takes the old one's name). */
  private async compact(accountId: string, id: string): Promise<void> {
    const loaded = await this.load(accountId, id);
    // A line that cannot be read would be left out of the new file: such a file is kept whole (load said so).
    if (!loaded || loaded.damaged) return;
    const file = this.fileOf(id);
    const temp = `${file}.tmp-${process.pid}-${++this.counter}`;
    const header = headerLine(loaded.record);
    const items = loaded.items.map((entry) => ({ id: entry.id, item: JSON.stringify(entry.item) }));
    const line = items.length > 0 ? itemsLine(items) : '';
    const handle = await fs.promises.open(temp, 'wx', FILE_MODE);
    try {
      await handle.write(header);
      if (line !== '') await writeText(handle, line);
      await handle.datasync();
      await handle.close();
      await fs.promises.rename(temp, file);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
    this.sizes.track(id, loaded.record.accountId, Buffer.byteLength(header) + Buffer.byteLength(line));
    await syncDir(this.dir);
  }

  /** One line at the end of the file, after cutting off a half-written one a killed process left; the file's size after. */
  private async appendLine(id: string, loaded: Loaded, line: string): Promise<number> {
    const file = this.fileOf(id);
    if (loaded.wholeBytes !== loaded.size) await fs.promises.truncate(file, loaded.wholeBytes);
    const handle = await fs.promises.open(file, 'a', FILE_MODE);
    try {
      await writeText(handle, line);
    } catch (error) {
      await handle.close().catch(() => undefined);
      // What was written of the line is cut off by the next change (it is not a whole line).
      throw error;
    }
    const size = loaded.wholeBytes + Buffer.byteLength(line);
    this.sizes.track(id, loaded.record.accountId, size);
    this.syncLater(id, handle, false);
    return size;
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

  /**
   * The conversation's file read and folded, when it is the account's (any account's: `undefined`).
   * With `full` its items are parsed; without, an append's line is counted from its head (`n`,
   * `bytes`) and never parsed, so reading the conversation alone (retrieve, an append's bounds)
   * does not parse every item it holds.
   */
  private async load(accountId: string | undefined, id: string, full = true): Promise<Loaded | undefined> {
    if (!SAFE_ID.test(id)) return undefined;
    let buffer: Buffer;
    try {
      buffer = await fs.promises.readFile(this.fileOf(id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.onProblem(`cannot read conversation ${id}: ${(error as Error).message}`);
      return undefined;
    }
    const wholeBytes = buffer.lastIndexOf(0x0a) + 1;
    const lines = buffer.toString('utf8', 0, wholeBytes).split('\n');
    let record: ConversationRecord | undefined;
    const items: Loaded['items'] = [];
    let count = 0;
    let bytes = 0;
    let damaged = false;
    for (const [index, line] of lines.entries()) {
      if (line === '') continue;
      // A line cut or garbled after its head (it no longer ends as an append's does) is parsed, so it is skipped as a full read skips it.
      const head = full || !line.endsWith(']}') ? null : APPEND_HEAD.exec(line);
      if (head) {
        count += Number(head[1]);
        bytes += Number(head[2]);
        continue;
      }
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(line) as Record<string, unknown>;
      } catch (error) {
        this.onProblem(`conversation ${id}: line ${index + 1} is not valid JSON (${(error as Error).message}); it is skipped, the file is kept`);
        damaged = true;
        continue;
      }
      if (index === 0) {
        if (value.id !== id || typeof value.accountId !== 'string' || typeof value.createdAt !== 'number') {
          this.onProblem(`conversation ${id}: its first line is not the conversation; the file is kept`);
          return undefined;
        }
        record = { id, accountId: value.accountId, createdAt: value.createdAt, metadata: stringRecord(value.metadata), itemCount: 0, itemBytes: 0 };
      } else if (Array.isArray(value.items)) {
        for (const item of value.items as Array<Record<string, unknown>>) {
          if (typeof item?.id !== 'string') continue;
          items.push({ id: item.id, item });
          count += 1;
        }
        bytes += typeof value.bytes === 'number' ? value.bytes : (value.items as unknown[]).reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
      } else if (value.metadata !== undefined && record) {
        record.metadata = stringRecord(value.metadata);
      } else if (typeof value.deleted === 'string') {
        count -= 1;
        bytes -= typeof value.bytes === 'number' ? value.bytes : 0;
        if (full) {
          const at = items.findIndex((entry) => entry.id === value.deleted);
          if (at !== -1) items.splice(at, 1);
        }
      }
    }
    if (!record || (accountId !== undefined && record.accountId !== accountId)) return undefined;
    record.itemCount = count;
    record.itemBytes = bytes;
    return { record, items, wholeBytes, size: buffer.length, buffer, damaged };
  }
}

const ID_MARK = Buffer.from('"id":"');

/**
 * Whether the file's text has `"id":"<one of ids>"` (an item's id, or an id deeper in an item: a
 * superset), in one pass over it. An item id is at most 200 safe ASCII characters, never escaped.
 * (A search per id was one pass each: 2,000 items added to a 20 MB conversation took 7.7 s.)
 */
function namesAnyId(buffer: Buffer, ids: ReadonlySet<string>): boolean {
  for (let at = buffer.indexOf(ID_MARK); at !== -1; at = buffer.indexOf(ID_MARK, at + ID_MARK.length)) {
    const start = at + ID_MARK.length;
    const end = buffer.indexOf(0x22, start);
    if (end === -1) return false;
    if (end - start <= 200 && ids.has(buffer.toString('latin1', start, end))) return true;
  }
  return false;
}

/** Bytes of deleted items and replaced metadata a conversation's file may hold beyond twice what it holds before it is rewritten. */
const COMPACT_SLACK = 64 * 1024;

/** A conversation file's first line: the conversation (its metadata as it is now, when rewritten). */
function headerLine(record: Pick<ConversationRecord, 'id' | 'accountId' | 'createdAt' | 'metadata'>): string {
  return `${JSON.stringify({ id: record.id, accountId: record.accountId, createdAt: record.createdAt, metadata: record.metadata })}\n`;
}

/** The head of an append's line (below), read without parsing its items. */
const APPEND_HEAD = /^\{"n":(\d+),"bytes":(\d+),"items":\[/;

/** An append's line: how many items and their bytes first (a reader counts them without parsing), then the items. */
function itemsLine(items: ConversationItemInput[]): string {
  return `{"n":${items.length},"bytes":${bytesOf(items)},"items":[${items.map((entry) => entry.item).join(',')}]}\n`;
}

function bytesOf(items: ConversationItemInput[]): number {
  return items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
}

/** The string values of a parsed object, as own properties ('__proto__' included: JSON.parse keeps it as a key). */
function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
