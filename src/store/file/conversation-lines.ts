import fs from 'node:fs';
import { FILE_MODE } from '../../util/index.ts';
import type { ConversationItemInput, ConversationItemsQuery, ConversationRecord } from '../types.ts';
import { writeText } from '../write-text.ts';
import { addPlace, readPlaces, type ConversationIndex, type ItemPlace } from './conversation-index.ts';

/** A rewritten file's lines hold items up to this many bytes together (an item longer than that alone in its line). */
export const LINE_TARGET = 256 * 1024;

/** Items a rewrite reads at a time. */
const REWRITE_BATCH = 200;

/** A conversation file's first line: the conversation (its metadata as it is now, when rewritten). */
export function headerLine(record: Pick<ConversationRecord, 'id' | 'accountId' | 'createdAt' | 'metadata'>): string {
  return `${JSON.stringify({ id: record.id, accountId: record.accountId, createdAt: record.createdAt, metadata: record.metadata })}\n`;
}

/** An append's line: how many items and their bytes first, then the items. */
export function itemsLine(items: readonly ConversationItemInput[]): string {
  return `{"n":${items.length},"bytes":${bytesOf(items)},"items":[${items.map((entry) => entry.item).join(',')}]}\n`;
}

export function bytesOf(items: readonly ConversationItemInput[]): number {
  return items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
}

/** The index of a conversation file that holds its first line only. */
export function emptyIndex(record: ConversationRecord, headerBytes: number): ConversationIndex {
  return { record, items: [], ids: new Map(), end: headerBytes, size: headerBytes, damaged: false, widest: 0 };
}

/** The items of one line of `length` bytes at `at` (by default the end of the file: a line just written there), placed in the index. */
export function placeLine(index: ConversationIndex, items: readonly ConversationItemInput[], length: number, at = index.end): void {
  items.forEach((entry, place) => addPlace(index, { id: entry.id, at, length, index: place }));
  if (items.length > 1) index.widest = Math.max(index.widest, length);
  if (at === index.end) {
    index.end += length;
    index.size = index.end;
  }
}

/** The places of one page (`pageInputItems`' order and cursor: an id held twice is read at its last place in the page's order); `no_item` for an `after` none has. */
export function pagePlaces(items: readonly ItemPlace[], query: ConversationItemsQuery): { places: ItemPlace[]; hasMore: boolean } | 'no_item' {
  if (query.order === 'asc') {
    const at = query.after === undefined ? -1 : items.findLastIndex((place) => place.id === query.after);
    if (at === -1 && query.after !== undefined) return 'no_item';
    const start = at + 1;
    const places = items.slice(start, start + query.limit);
    return { places, hasMore: start + places.length < items.length };
  }
  const end = query.after === undefined ? items.length : items.findIndex((place) => place.id === query.after);
  if (end === -1) return 'no_item';
  const from = Math.max(0, end - query.limit);
  return { places: items.slice(from, end).reverse(), hasMore: from > 0 };
}

/**
 * The conversation `index` describes written to `temp` as what it holds: its first line, then its
 * items in lines of at most `LINE_TARGET` bytes, read from `file` and written a batch at a time,
 * synced, then renamed over `file`. The new file's index; `temp` is removed on failure (an item
 * that cannot be read back fails it: it would be lost).
 */
export async function writeConversationFile(file: string, temp: string, index: ConversationIndex, onProblem: (message: string) => void): Promise<ConversationIndex> {
  const header = headerLine(index.record);
  const next = emptyIndex(index.record, Buffer.byteLength(header));
  const handle = await fs.promises.open(temp, 'wx', FILE_MODE);
  try {
    await handle.write(header);
    let batch: ConversationItemInput[] = [];
    let batchBytes = 0;
    const writeBatch = async () => {
      if (batch.length === 0) return;
      placeLine(next, batch, await writeText(handle, itemsLine(batch)));
      batch = [];
      batchBytes = 0;
    };
    for (let from = 0; from < index.items.length; from += REWRITE_BATCH) {
      const places = index.items.slice(from, from + REWRITE_BATCH);
      const items = await readPlaces(file, places, onProblem);
      if (items.length !== places.length) throw new Error('some items could not be read back');
      for (const item of items) {
        const text = JSON.stringify(item);
        const bytes = Buffer.byteLength(text);
        if (batch.length > 0 && batchBytes + bytes > LINE_TARGET) await writeBatch();
        batch.push({ id: item.id as string, item: text });
        batchBytes += bytes;
      }
    }
    await writeBatch();
    await handle.datasync();
    await handle.close();
    await fs.promises.rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
  return next;
}
