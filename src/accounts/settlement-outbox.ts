import fs from 'node:fs';
import path from 'node:path';
import type { SettleRequest } from '../store/repositories.ts';
import { ensurePrivateDir, FILE_MODE } from '../util/private-files.ts';

/**
 * Settlements the database could not take (it was unreachable when the answer ended), kept in
 * the instance's data dir until it can: `settlements.pending.jsonl`, one request a line,
 * appended with one write(2) before the answer's last bytes go out, so a charge acknowledged
 * to a client survives a database outage and a crash of the instance. Settling is idempotent
 * per request id, so sending a line twice (a crash between the commit and the rewrite) charges once.
 */
export class SettlementOutbox {
  readonly file: string;

  constructor(dataDir: string) {
    ensurePrivateDir(dataDir);
    this.file = path.join(dataDir, 'settlements.pending.jsonl');
  }

  /** Keeps one settlement (synchronously: in the kernel when this returns). */
  keep(request: SettleRequest): void {
    fs.appendFileSync(this.file, JSON.stringify(request) + '\n', { mode: FILE_MODE });
  }

  /** The settlements kept, and how many lines could not be read (a torn last line). */
  read(): { requests: SettleRequest[]; unreadable: number } {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return { requests: [], unreadable: 0 };
    }
    const requests: SettleRequest[] = [];
    let unreadable = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        requests.push(JSON.parse(line) as SettleRequest);
      } catch {
        unreadable += 1;
      }
    }
    return { requests, unreadable };
  }

  /**
   * Sends every kept settlement through `settle`; those that still fail are written back
   * (the file is replaced by a rename). Returns how many were sent and how many remain.
   */
  async drain(settle: (request: SettleRequest) => Promise<unknown>): Promise<{ sent: number; left: number }> {
    const { requests } = this.read();
    if (requests.length === 0) return { sent: 0, left: 0 };
    const left: SettleRequest[] = [];
    for (const request of requests) {
      try {
        await settle(request);
      } catch {
        left.push(request);
      }
    }
    // Lines kept while this ran are appended after the ones read: keep them too.
    const now = this.read().requests.slice(requests.length);
    const keep = [...left, ...now];
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, keep.map((r) => JSON.stringify(r) + '\n').join(''), { mode: FILE_MODE });
    fs.renameSync(tmp, this.file);
    if (keep.length === 0) fs.rmSync(this.file, { force: true });
    return { sent: requests.length - left.length, left: keep.length };
  }
}
