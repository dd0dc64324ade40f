import fs from 'node:fs';
import path from 'node:path';

/** One settled request in the usage ledger (append-only JSONL in the data dir). */
export interface LedgerEntry {
  ts: number;
  request_id: string;
  account_id: string;
  key_id: string;
  model: string;
  provider: string;
  endpoint: string;
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  cached_tokens: number;
  cost_credits: number;
  estimated: boolean;
  aborted: boolean;
  [extra: string]: unknown;
}

/**
 * Appends ledger lines through one write stream: about 3 µs a line and no wait on the
 * request path (stack notes). Lines are whole JSON objects, so a crash leaves at most a torn
 * last line, which readers skip.
 */
export class UsageLedger {
  readonly file: string;
  private readonly stream: fs.WriteStream;

  constructor(dataDir: string, name = 'usage.jsonl') {
    fs.mkdirSync(dataDir, { recursive: true });
    this.file = path.join(dataDir, name);
    this.stream = fs.createWriteStream(this.file, { flags: 'a' });
    this.stream.on('error', () => undefined);
  }

  append(entry: LedgerEntry): void {
    this.stream.write(JSON.stringify(entry) + '\n');
  }

  /** Waits until everything appended so far is handed to the OS. */
  async flush(): Promise<void> {
    if (this.stream.writableLength === 0) return;
    await new Promise<void>((resolve) => this.stream.write('', () => resolve()));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.stream.end(() => resolve()));
  }
}

/** Reads every whole line of a ledger file (a torn last line is skipped). */
export function readLedger(file: string): LedgerEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: LedgerEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as LedgerEntry);
    } catch {
      // a torn line from a crash mid-write
    }
  }
  return out;
}
