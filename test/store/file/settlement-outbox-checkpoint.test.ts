import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SettlementOutbox, type NewOutboxLine, type OutboxLine } from '../../../src/store/file/settlement-outbox.ts';
import type { SettleOutcome } from '../../../src/store/repositories.ts';
import { createLogger } from '../../../src/util/logger.ts';
import { ledgerLine } from '../../helpers/ledger-line.ts';

const dirs: string[] = [];
const opened: SettlementOutbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close(100)));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A database keyed by request id: a line sent twice is taken once. */
function database() {
  const rows = new Map<string, number>();
  const calls: number[] = [];
  const ship = async (lines: readonly OutboxLine[]): Promise<SettleOutcome[]> => {
    calls.push(lines.length);
    return lines.map((l) => {
      if (rows.has(l.request_id)) return { inserted: false, charged: 0 };
      rows.set(l.request_id, l.charged_credits);
      return { inserted: true, charged: l.charged_credits };
    });
  };
  return { rows, calls, ship };
}

function open(dataDir: string, ship: ReturnType<typeof database>['ship'], truncateBytes = 1 << 20): SettlementOutbox {
  const outbox = new SettlementOutbox({ dataDir, ship, log: createLogger('silent'), flushMs: 10, truncateBytes });
  opened.push(outbox);
  return outbox;
}

const line = (id: string): NewOutboxLine => ({ ...ledgerLine(id), charged_credits: 1 });

const cursorOf = (dir: string) => Number(fs.readFileSync(path.join(dir, 'settlements.shipped'), 'utf8'));

describe('settlement outbox: the checkpoint', () => {
  it('empties its file once every line is shipped, and numbering goes on across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    const db = database();
    const first = open(dir, db.ship, 1);
    for (let i = 0; i < 5; i++) first.append(line(`r${i}`), true);
    await first.flush();
    expect(db.rows.size).toBe(5);
    expect(fs.statSync(path.join(dir, 'settlements.jsonl')).size).toBe(0);
    await expect.poll(() => cursorOf(dir), { timeout: 2_000, interval: 10 }).toBe(5);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = open(dir, db.ship, 1);
    expect(second.unshipped()).toHaveLength(0);
    const { line: next } = second.append(line('r5'), true);
    expect(next.seq).toBe(6);
    await second.flush();
    await expect.poll(() => cursorOf(dir), { timeout: 2_000, interval: 10 }).toBe(6);
  });

  it('a checkpoint torn by a power loss mid-write never skips a line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    const db = database();
    let down = false;
    const first = open(dir, (lines) => (down ? Promise.reject(new Error('database down')) : db.ship(lines)));
    for (let i = 0; i < 10; i++) first.append(line(`r${i}`), true);
    await first.flush();
    down = true;
    first.append(line('r10'), true);
    first.append(line('r11'), true);
    await first.close(0);
    opened.splice(opened.indexOf(first), 1);
    // A checkpoint written in place (a fixed-width 10 over 9) that a power loss tore after 18 bytes: the new
    // write's head and the old one's tail read 19, past lines 11 and 12 that never reached the database.
    fs.writeFileSync(path.join(dir, 'settlements.shipped'), '0000000000000000019\n');

    const second = open(dir, db.ship);
    await second.flush();
    expect([...db.rows.keys()]).toContain('r10');
    expect([...db.rows.keys()]).toContain('r11');
    expect(db.rows.size).toBe(12);
  });

  it('moves the checkpoint by a whole new file: the number, nothing else, and no side file left', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    const db = database();
    const outbox = open(dir, db.ship);
    for (let i = 0; i < 3; i++) outbox.append(line(`r${i}`), true);
    await outbox.flush();
    await outbox.close();
    opened.splice(opened.indexOf(outbox), 1);
    expect(fs.readFileSync(path.join(dir, 'settlements.shipped'), 'utf8')).toBe('3\n');
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('settlements.shipped'))).toEqual(['settlements.shipped']);
  });

  it('a checkpoint that cannot be read sends every line of the file again, each charged once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-outbox-'));
    dirs.push(dir);
    const db = database();
    const first = open(dir, db.ship);
    for (let i = 0; i < 3; i++) first.append(line(`r${i}`), true);
    await first.flush();
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    fs.writeFileSync(path.join(dir, 'settlements.shipped'), '00000\0garbage');

    const second = open(dir, db.ship);
    expect(second.unshipped().map((l) => l.request_id)).toEqual(['r0', 'r1', 'r2']);
    await second.flush();
    expect(db.calls).toEqual([3, 3]);
    expect([...db.rows.values()]).toEqual([1, 1, 1]);
  });
});
