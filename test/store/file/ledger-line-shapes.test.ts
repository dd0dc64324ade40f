/**
 * The hand-built ledger line (encode-ledger-line.ts) against shapes the generator of
 * encode-ledger-line.test.ts does not make: own `__proto__` keys, getters, non-enumerable and
 * inherited fields, null-prototype records, boxed primitives, Maps, typed and sparse arrays,
 * random control characters and lone surrogates in keys and values; then through the ledger file,
 * lines JSON.stringify wrote before (old) and lines written now, replayed alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeLedgerLine } from '../../../src/store/file/encode-ledger-line.ts';
import { seededRandom as random } from '../../helpers/seeded-random.ts';
import { salvageLine } from '../../../src/store/file/read-ledger-file.ts';
import { UsageLedger, type LedgerEntry, type NewLedgerEntry } from '../../../src/store/file/usage-ledger.ts';

const KEYS = ['__proto__', '0', '1', '4294967294', '4294967295', '-1', '1.5', 'toJSON_', 'valueOf', 'a"b', '\u2028', '\ud800', '', 'ключ', 'x\ny', 'media', 'holder', 'lease'];
const ODD_CHARS = [0x2028, 0x2029, 0x7f, 0xd800, 0xdfff, 0x22, 0x5c, 0x0, 0x1f];

function text(next: () => number): string {
  let s = '';
  const length = Math.floor(next() * 8);
  for (let i = 0; i < length; i++) {
    const r = next();
    s += String.fromCharCode(r < 0.5 ? 0x20 + Math.floor(next() * 95) : r < 0.7 ? Math.floor(next() * 0x20) : r < 0.9 ? Math.floor(next() * 0x10000) : ODD_CHARS[Math.floor(next() * ODD_CHARS.length)]);
  }
  return s;
}

function key(next: () => number): string {
  const k = next() < 0.5 ? KEYS[Math.floor(next() * KEYS.length)] : text(next);
  // seq is the ledger's own.
  return k === 'seq' ? 'seq_' : k;
}

/** Defined, not assigned: an own `__proto__` stays a field, and no inherited setter runs. */
function define(o: object, k: string, value: unknown): void {
  Object.defineProperty(o, k, { value, enumerable: true, configurable: true, writable: true });
}

function value(next: () => number, depth = 0): unknown {
  const r = next();
  if (r < 0.25) return text(next);
  if (r < 0.45) return [0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 5e-324, 2 ** 53 + 2, -1.5, Number.MAX_VALUE, next() * 1e6][Math.floor(next() * 12)];
  if (r < 0.5) return next() < 0.5;
  if (r < 0.55) return undefined;
  if (r < 0.58) return null;
  if (r < 0.62) return [new Number(3), new String('s"'), new Boolean(false), Object(Symbol('x'))][Math.floor(next() * 4)];
  if (r < 0.7 && depth < 3) {
    const o: object = next() < 0.3 ? Object.create(null) : {};
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) define(o, key(next), value(next, depth + 1));
    return o;
  }
  if (r < 0.78 && depth < 3) {
    const a: unknown[] = [];
    const n = Math.floor(next() * 4);
    for (let i = 0; i < n; i++) a.push(value(next, depth + 1));
    if (next() < 0.2) a[6] = 1;
    return a;
  }
  if (r < 0.8) return new Date(Math.floor(next() * 2e12));
  if (r < 0.82) return { toJSON: (k: string) => `as ${k}` };
  if (r < 0.84) return () => 1;
  if (r < 0.86) return Symbol('s');
  if (r < 0.88) return new Map([[1, 2]]);
  if (r < 0.9) return new Uint8Array([1, 2]);
  return next() * 1000;
}

function entry(next: () => number, seq: number): { seq: number } {
  const r = next();
  const e: object = r < 0.1 ? Object.create(null) : r < 0.2 ? Object.create({ inherited: 1 }) : {};
  const n = Math.floor(next() * 10);
  for (let i = 0; i < n; i++) {
    const k = key(next);
    const how = next();
    if (how < 0.05) Object.defineProperty(e, k, { get: () => 'got', enumerable: true, configurable: true });
    else if (how < 0.1) Object.defineProperty(e, k, { value: 'hidden', enumerable: false, configurable: true, writable: true });
    else define(e, k, value(next));
  }
  (e as { seq: number }).seq = seq;
  return e as { seq: number };
}

const INTEGER_KEY = /^(?:0|[1-9]\d*)$/;

describe('the ledger line, odd shapes', () => {
  it('parses to what JSON.stringify gives (the same keys), one line, seq first, for 20,000 entries', () => {
    const next = random(2028);
    for (let i = 1; i <= 20_000; i++) {
      const e = entry(next, i);
      let expected: string;
      try {
        expected = JSON.stringify(e);
      } catch {
        expect(() => encodeLedgerLine(e), `entry ${i}`).toThrow();
        continue;
      }
      const line = encodeLedgerLine(e);
      expect(line.indexOf('\n'), `entry ${i}: ${line}`).toBe(line.length - 1);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(parsed, `entry ${i}: ${line}`).toEqual(JSON.parse(expected));
      expect(Object.keys(parsed).sort(), `entry ${i}: ${line}`).toEqual(Object.keys(JSON.parse(expected) as object).sort());
      // A torn line's salvage reads seq from the front (an integer-like key, which an object lists first, aside).
      if (!Object.keys(e).some((k) => INTEGER_KEY.test(k))) expect(line.startsWith(`{"seq":${i},`) || line === `{"seq":${i}}\n`, `entry ${i}: ${line}`).toBe(true);
    }
  });

  it('replays lines written before (JSON.stringify of a seq-first copy) and lines written now alike', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-ledger-shapes-'));
    const next = random(7);
    // A replayable entry: an account and a finite charge; the rest odd.
    const replayable = (): NewLedgerEntry => {
      const e = entry(next, 0) as Record<string, unknown>;
      delete e.seq;
      if ('toJSON' in e) delete e.toJSON;
      for (const k of Object.keys(e)) if (INTEGER_KEY.test(k) || typeof e[k] === 'bigint') delete e[k];
      define(e, 'account_id', `acct_${text(next)}x`);
      define(e, 'charged_credits', Math.round(next() * 1e6) / 1e6);
      return e as unknown as NewLedgerEntry;
    };
    const expected: unknown[] = [];
    const old: string[] = [];
    for (let seq = 1; seq <= 200; seq++) {
      const line = JSON.stringify({ seq, ...replayable() });
      old.push(line);
      expected.push(JSON.parse(line));
    }
    fs.writeFileSync(path.join(dataDir, 'usage.jsonl'), `${old.join('\n')}\n`);
    const ledger = UsageLedger.open(dataDir);
    expect(ledger.report.unreplayable).toEqual([]);
    for (let i = 0; i < 200; i++) {
      const input = replayable();
      const copy = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
      const written = ledger.append(input);
      expect(written.seq).toBe(201 + i);
      expected.push({ seq: written.seq, ...copy });
    }
    await ledger.close();
    const file = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8');
    const lines = file.split('\n').slice(0, -1);
    expect(lines).toHaveLength(400);
    lines.forEach((line, i) => expect(salvageLine(line).seq, line).toBe(i + 1));
    const replayed: LedgerEntry[] = [];
    const again = UsageLedger.open(dataDir, { onEntry: (e) => replayed.push(e) });
    expect(again.report.unreplayable).toEqual([]);
    expect(again.lastSeq).toBe(400);
    await again.close();
    expect(replayed).toEqual(expected);
  });
});
