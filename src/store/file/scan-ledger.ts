import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { LedgerEntry } from './usage-ledger.ts';

const CHUNK = 1 << 20;

/**
 * Visits every whole ledger entry without holding the event loop: one awaited read per MiB,
 * so a running server keeps serving while an operator asks for `gateway usage`.
 * A torn last line (a crash mid-write) is skipped. Returns the bytes read.
 */
export async function scanLedger(file: string, visit: (entry: LedgerEntry) => void): Promise<number> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch {
    return 0;
  }
  const buffer = Buffer.alloc(CHUNK);
  const decoder = new StringDecoder('utf8');
  let carry = '';
  let offset = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
      const lines = (carry + decoder.write(buffer.subarray(0, bytesRead))).split('\n');
      carry = lines.pop() ?? '';
      for (const line of lines) {
        if (!line) continue;
        try {
          const entry = JSON.parse(line) as LedgerEntry;
          if (entry && typeof entry === 'object' && typeof entry.account_id === 'string') visit(entry);
        } catch {
          // a torn line
        }
      }
    }
  } finally {
    await handle.close();
  }
  return offset;
}
