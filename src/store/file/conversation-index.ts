import fs from 'node:fs';
import type { ConversationRecord } from '../types.ts';

/** Where one item is kept: its line (offset and length in the file) and its place among that line's items. */
export interface ItemPlace {
  id: string;
  at: number;
  length: number;
  index: number;
}

/**
 * What a conversation's file holds, read once and kept while the conversation is in use: the
 * conversation and where each of its items is, so a change writes its line without reading the
 * file and a page reads the lines of its items only.
 */
export interface ConversationIndex {
  record: ConversationRecord;
  /** Its items in order. */
  items: ItemPlace[];
  /** How many items hold each id (an append with rename checks its ids against these). */
  ids: Map<string, number>;
  /** Bytes of whole lines: where the next line goes. */
  end: number;
  /** The file's size as read: past `end` while a line a killed process left half written is there (cut off before the next change). */
  size: number;
  /** A line (a whole one) could not be read: the file is kept as it is for whoever repairs it, never rewritten. */
  damaged: boolean;
  /** The longest line that holds more than one item (a file rewritten by an earlier version holds them all in one). */
  widest: number;
}

/** Bytes read from a conversation's file at a time (one line longer than this is read whole). */
const CHUNK = 1024 * 1024;

/** Adds one item place, and counts its id. */
export function addPlace(index: Pick<ConversationIndex, 'items' | 'ids'>, place: ItemPlace): void {
  index.items.push(place);
  index.ids.set(place.id, (index.ids.get(place.id) ?? 0) + 1);
}

/** Removes the item at `at` of the list, and uncounts its id. */
export function removePlace(index: Pick<ConversationIndex, 'items' | 'ids'>, at: number): void {
  const [place] = index.items.splice(at, 1);
  const left = (index.ids.get(place.id) ?? 1) - 1;
  if (left > 0) index.ids.set(place.id, left);
  else index.ids.delete(place.id);
}

/**
 * A conversation's file read line by line, a chunk at a time (each line parsed once; the event
 * loop runs between chunks): undefined when there is no such file or its first line is not
 * conversation `id` (reported, as is a file with no whole first line). A line that is not valid JSON is skipped (and reported); an item line
 * written without its byte count (the first format of these files) is counted from its items.
 */
export async function readConversationIndex(file: string, id: string, onProblem: (message: string) => void): Promise<ConversationIndex | undefined> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onProblem(`cannot read conversation ${id}: ${(error as Error).message}`);
    return undefined;
  }
  try {
    const index: ConversationIndex = { record: { id, accountId: '', createdAt: 0, metadata: {}, itemCount: 0, itemBytes: 0 }, items: [], ids: new Map(), end: 0, size: 0, damaged: false, widest: 0 };
    let lineNo = 0;
    // A line's bytes read so far, in as many chunks as it spans (joined once, when it ends).
    let carry: Buffer[] = [];
    let position = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const read = chunk.subarray(0, bytesRead);
      const firstNewline = read.indexOf(0x0a);
      if (firstNewline === -1) {
        carry.push(read);
        continue;
      }
      const buffer = carry.length > 0 ? Buffer.concat([...carry, read]) : read;
      carry = [];
      let start = 0;
      for (let newline = buffer.indexOf(0x0a); newline !== -1; newline = buffer.indexOf(0x0a, start)) {
        const length = newline + 1 - start;
        if (!foldLine(index, buffer.toString('utf8', start, newline), lineNo, index.end, length, onProblem)) return undefined;
        lineNo += 1;
        index.end += length;
        start = newline + 1;
      }
      if (start < buffer.length) carry.push(buffer.subarray(start));
    }
    index.size = position;
    if (lineNo === 0 && position > 0) {
      // Bytes, but not one whole line: nothing can be read, and saying nothing would make a stored conversation a silent 404.
      onProblem(`conversation ${id}: its file holds no whole first line (${position} bytes: garbage, or cut inside its first line); it cannot be read; the file is kept`);
    }
    return lineNo === 0 ? undefined : index;
  } catch (error) {
    onProblem(`cannot read conversation ${id}: ${(error as Error).message}`);
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** One whole line folded into the index; false when the first line is not the conversation. */
function foldLine(index: ConversationIndex, line: string, lineNo: number, at: number, length: number, onProblem: (message: string) => void): boolean {
  const { record } = index;
  if (line === '') return lineNo !== 0;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch (error) {
    onProblem(`conversation ${record.id}: line ${lineNo + 1} is not valid JSON (${(error as Error).message}); it is skipped, the file is kept`);
    index.damaged = true;
    return lineNo !== 0;
  }
  if (lineNo === 0) {
    if (value.id !== record.id || typeof value.accountId !== 'string' || typeof value.createdAt !== 'number') {
      onProblem(`conversation ${record.id}: its first line is not the conversation; the file is kept`);
      return false;
    }
    record.accountId = value.accountId;
    record.createdAt = value.createdAt;
    record.metadata = stringRecord(value.metadata);
  } else if (Array.isArray(value.items)) {
    const items = value.items as Array<Record<string, unknown>>;
    items.forEach((item, place) => {
      if (typeof item?.id !== 'string') return;
      addPlace(index, { id: item.id, at, length, index: place });
      record.itemCount += 1;
    });
    if (items.length > 1) index.widest = Math.max(index.widest, length);
    record.itemBytes += typeof value.bytes === 'number' ? value.bytes : items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
  } else if (value.metadata !== undefined) {
    record.metadata = stringRecord(value.metadata);
  } else if (typeof value.deleted === 'string') {
    record.itemCount -= 1;
    record.itemBytes -= typeof value.bytes === 'number' ? value.bytes : 0;
    const found = index.items.findIndex((place) => place.id === value.deleted);
    if (found !== -1) removePlace(index, found);
  }
  return true;
}

/** Lines closer than this are read in one read (what lies between is read and left). */
const GAP = 16 * 1024;

/**
 * The items at `places` (in that order), each line read once: lines next to each other are read
 * together, up to `CHUNK` bytes a read, and parsed one at a time. An item its line no longer holds
 * (the file changed under the store) is left out and reported.
 */
export async function readPlaces(file: string, places: readonly ItemPlace[], onProblem: (message: string) => void): Promise<Array<Record<string, unknown>>> {
  if (places.length === 0) return [];
  const lines = [...new Map(places.map((place) => [place.at, place])).values()].sort((a, b) => a.at - b.at);
  const parsed = new Map<number, unknown[]>();
  const handle = await fs.promises.open(file, 'r');
  try {
    for (let first = 0; first < lines.length; ) {
      let last = first;
      while (last + 1 < lines.length && lines[last + 1].at - (lines[last].at + lines[last].length) <= GAP && lines[last + 1].at + lines[last + 1].length - lines[first].at <= CHUNK) last += 1;
      const from = lines[first].at;
      const buffer = Buffer.allocUnsafe(lines[last].at + lines[last].length - from);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
      for (let n = first; n <= last; n += 1) {
        const line = lines[n];
        if (line.at - from + line.length > bytesRead) break;
        try {
          const value = JSON.parse(buffer.toString('utf8', line.at - from, line.at - from + line.length)) as { items?: unknown };
          if (Array.isArray(value.items)) parsed.set(line.at, value.items);
        } catch {
          // Left out below, with the others its line does not hold.
        }
      }
      first = last + 1;
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  const out: Array<Record<string, unknown>> = [];
  for (const place of places) {
    const item = parsed.get(place.at)?.[place.index] as Record<string, unknown> | undefined;
    if (item?.id === place.id) out.push(item);
    else onProblem(`conversation file ${file}: item ${place.id} is not where it was written (the file changed under the store); it is left out`);
  }
  return out;
}

/** The string values of a parsed object, as own properties ('__proto__' included: JSON.parse keeps it as a key). */
function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
