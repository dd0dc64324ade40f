import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { encodeLedgerLine } from '../../../src/store/file/encode-ledger-line.ts';
import { forEachLedgerEntry, readLedger, UsageLedger, type NewLedgerEntry } from '../../../src/store/file/usage-ledger.ts';

function dir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gw-ledger-'));
}

function entry(overrides: Partial<NewLedgerEntry> = {}): NewLedgerEntry {
  return {
    ts: Date.UTC(2026, 0, 5, 12),
    request_id: 'req_1',
    account_id: 'acct_a',
    key_id: 'key_a',
    model: 'mock/echo',
    provider: 'mock',
    endpoint: '/v1/chat/completions',
    input_tokens: 10,
    output_tokens: 5,
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: 1.5,
    charged_credits: 1.5,
    estimated: false,
    aborted: false,
    ...overrides,
  };
}

describe('UsageLedger', () => {
  it('numbers entries from 1 and keeps numbering across reopenings', async () => {
    const d = dir();
    const first = UsageLedger.open(d);
    expect(first.append(entry()).seq).toBe(1);
    expect(first.append(entry()).seq).toBe(2);
    await first.close();
    const seen: number[] = [];
    const second = UsageLedger.open(d, { onEntry: (e) => seen.push(e.seq) });
    expect(seen).toEqual([1, 2]);
    expect(second.lastSeq).toBe(2);
    expect(second.append(entry()).seq).toBe(3);
    await second.close();
    expect(readLedger(path.join(d, 'usage.jsonl')).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('an appended line is in the file as soon as append returns (no wait, no flush)', () => {
    const d = dir();
    const ledger = UsageLedger.open(d, { syncIntervalMs: 0 });
    ledger.append(entry({ request_id: 'req_now' }));
    const text = fs.readFileSync(path.join(d, 'usage.jsonl'), 'utf8');
    expect(text).toContain('"request_id":"req_now"');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('cuts a torn last line so the next entry is not glued to it', async () => {
    const d = dir();
    const ledger = UsageLedger.open(d);
    ledger.append(entry());
    await ledger.close();
    const file = path.join(d, 'usage.jsonl');
    fs.appendFileSync(file, '{"seq":2,"ts":1,"account_');
    const reopened = UsageLedger.open(d);
    expect(reopened.lastSeq).toBe(1);
    reopened.append(entry({ request_id: 'after' }));
    await reopened.close();
    const entries = readLedger(file);
    expect(entries.map((e) => [e.seq, e.request_id])).toEqual([[1, 'req_1'], [2, 'after']]);
  });

  it('cuts a file that holds only a torn line', async () => {
    const d = dir();
    const file = path.join(d, 'usage.jsonl');
    fs.writeFileSync(file, '{"seq":1,"ts');
    const ledger = UsageLedger.open(d);
    expect(ledger.lastSeq).toBe(0);
    ledger.append(entry());
    await ledger.close();
    expect(readLedger(file).map((e) => e.seq)).toEqual([1]);
  });

  it('reads lines that straddle its 1 MB read chunks', () => {
    const d = dir();
    const file = path.join(d, 'usage.jsonl');
    const lines: string[] = [];
    for (let i = 1; i <= 6000; i++) lines.push(JSON.stringify({ ...entry({ request_id: `r${i}`.padEnd(200, 'x') }), seq: i }));
    fs.writeFileSync(file, lines.join('\n') + '\n');
    expect(fs.statSync(file).size).toBeGreaterThan(1 << 20);
    let count = 0;
    let last = 0;
    forEachLedgerEntry(file, (e) => {
      count += 1;
      expect(e.seq).toBe(last + 1);
      last = e.seq;
    });
    expect(count).toBe(6000);
  });

  it('skips lines that are not entries and reads a missing file as empty', () => {
    const d = dir();
    const file = path.join(d, 'usage.jsonl');
    expect(readLedger(file)).toEqual([]);
    fs.writeFileSync(file, 'garbage\n[1,2]\n' + JSON.stringify({ ...entry(), seq: 1 }) + '\n');
    expect(readLedger(file)).toHaveLength(1);
  });

  it('refuses appends after close', async () => {
    const ledger = UsageLedger.open(dir());
    await ledger.close();
    expect(() => ledger.append(entry())).toThrow(/closed/);
  });
});

describe('UsageLedger group commit', () => {
  const lines = (d: string) => fs.readFileSync(path.join(d, 'usage.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { seq: number });

  it('holds grouped lines until the window ends, then writes them in order with one write(2)', async () => {
    const d = dir();
    const ledger = UsageLedger.open(d, { groupCommitMs: 2 });
    const writes = vi.spyOn(fs, 'writeSync');
    try {
      const a = ledger.appendToGroup(entry(), false);
      const b = ledger.appendToGroup(entry(), false);
      expect([a.entry.seq, b.entry.seq]).toEqual([1, 2]);
      expect(a.written).toBe(b.written);
      expect(fs.readFileSync(path.join(d, 'usage.jsonl'), 'utf8')).toBe('');
      await a.written;
      expect(lines(d).map((l) => l.seq)).toEqual([1, 2]);
      expect(writes).toHaveBeenCalledTimes(1);
    } finally {
      writes.mockRestore();
      await ledger.close();
    }
  });

  it('writes the open group with a line that cannot wait, before returning', async () => {
    const d = dir();
    const ledger = UsageLedger.open(d, { groupCommitMs: 2 });
    const waiting = ledger.appendToGroup(entry(), false);
    const now = ledger.appendToGroup(entry(), true);
    expect(now.written).toBeUndefined();
    expect(lines(d).map((l) => l.seq)).toEqual([1, 2]);
    await waiting.written;
    // append() never waits either.
    expect(ledger.append(entry()).seq).toBe(3);
    expect(lines(d)).toHaveLength(3);
    await ledger.close();
  });

  it('writes a waiting group when it closes, and is off with 0 ms (each line its own write)', async () => {
    const d = dir();
    const ledger = UsageLedger.open(d, { groupCommitMs: 2 });
    ledger.appendToGroup(entry(), false);
    await ledger.close();
    expect(lines(d)).toHaveLength(1);
    const off = UsageLedger.open(dir(), { groupCommitMs: 0 });
    expect(off.appendToGroup(entry(), false).written).toBeUndefined();
    await off.close();
  });

  it('rewrite keeps just the given lines (a settlement outbox: those not sent yet), appends after them, and waits for an open group', async () => {
    const d = dir();
    const ledger = UsageLedger.open(d, { groupCommitMs: 2 });
    const written = [1, 2, 3, 4].map((i) => ledger.append(entry({ request_id: `req_${i}` })));
    const grouped = ledger.appendToGroup(entry({ request_id: 'req_5' }), false);
    // A group waits to be written: nothing is done (its line would land in the replaced file).
    expect(await ledger.rewrite(written.slice(2))).toBe(false);
    await grouped.written;
    const rewriting = ledger.rewrite([...written.slice(2), grouped.entry]);
    // Lines appended while the side file goes to the disk (and a group still open at the switch) follow the kept ones.
    expect(ledger.append(entry({ request_id: 'req_6' })).seq).toBe(6);
    expect(ledger.truncate()).toBe(false);
    const late = ledger.appendToGroup(entry({ request_id: 'req_7' }), false);
    expect(await rewriting).toBe(true);
    await late.written;
    expect(ledger.append(entry({ request_id: 'req_8' })).seq).toBe(8);
    const file = path.join(d, 'usage.jsonl');
    expect(readLedger(file).map((e) => [e.seq, e.request_id])).toEqual([[3, 'req_3'], [4, 'req_4'], [5, 'req_5'], [6, 'req_6'], [7, 'req_7'], [8, 'req_8']]);
    expect(ledger.bytes).toBe(fs.statSync(file).size);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(fs.existsSync(`${file}.rewrite`)).toBe(false);
    await ledger.close();
  });
});

describe('UsageLedger after a power loss during a rewrite', () => {
  /** A ledger of req_1..req_5 and a rewrite's side file holding `sideSeqs` (written as the rewrite writes them). */
  async function lostRename(sideSeqs: number[]): Promise<{ d: string; file: string }> {
    const d = dir();
    const ledger = UsageLedger.open(d);
    for (let i = 1; i <= 5; i++) ledger.append(entry({ request_id: `req_${i}` }));
    await ledger.close();
    const file = path.join(d, 'usage.jsonl');
    const side = sideSeqs.map((seq) => encodeLedgerLine({ ...entry({ request_id: `req_${seq}` }), seq })).join('');
    fs.writeFileSync(`${file}.rewrite`, side, { mode: 0o600 });
    return { d, file };
  }

  it('a side file numbered past the ledger (its rename undone, lines appended after it) becomes the ledger: no line is lost, numbering goes on', async () => {
    const { d, file } = await lostRename([4, 5, 6, 7]);
    const seen: number[] = [];
    const ledger = UsageLedger.open(d, { onEntry: (e) => seen.push(e.seq) });
    expect(seen).toEqual([4, 5, 6, 7]);
    expect(ledger.append(entry({ request_id: 'req_8' })).seq).toBe(8);
    await ledger.close();
    expect(readLedger(file).map((e) => e.request_id)).toEqual(['req_4', 'req_5', 'req_6', 'req_7', 'req_8']);
    expect(fs.existsSync(`${file}.rewrite`)).toBe(false);
  });

  it('a side file of a rewrite that never finished (all its lines in the ledger) is removed and the ledger kept', async () => {
    const { d, file } = await lostRename([4, 5]);
    const seen: number[] = [];
    const ledger = UsageLedger.open(d, { onEntry: (e) => seen.push(e.seq) });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(ledger.append(entry({ request_id: 'req_6' })).seq).toBe(6);
    await ledger.close();
    expect(fs.existsSync(`${file}.rewrite`)).toBe(false);
  });
});
