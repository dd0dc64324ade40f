import { readLogLines, type LogLine } from '../../util/index.ts';
import type { RejectedLine } from '../../util/index.ts';
import type { LedgerRecord as LedgerEntry } from '../types.ts';

/** A ledger line that cannot be replayed, with what could still be read from its text. */
export interface UnreplayableLine extends RejectedLine {
  /** The sequence number found in the text, if any. */
  seq?: number;
  /** The charged credits found in the text, if any. */
  credits?: number;
}

/** What reading a ledger file found. */
export interface LedgerFileReport {
  /** File size; where the next line goes once a torn tail is cut. */
  end: number;
  /** Offset of a last line without its newline (a write torn by a crash), if any. */
  tornAt?: number;
  /** Lines that are not whole ledger entries (torn, garbage), in file order; a torn tail last. */
  unreplayable: UnreplayableLine[];
}

const SEQ = /"seq"\s*:\s*(\d+)[,}]/;
/** A whole number only (followed by , or }): a torn line may end inside one. */
const CREDITS = /"charged_credits"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*[,}]/;

/** The seq and charged credits a line's text still shows, whatever else is wrong with it. */
export function salvageLine(text: string): { seq?: number; credits?: number } {
  const out: { seq?: number; credits?: number } = {};
  const seq = SEQ.exec(text);
  if (seq) out.seq = Number(seq[1]);
  const credits = CREDITS.exec(text);
  if (credits && Number.isFinite(Number(credits[1]))) out.credits = Number(credits[1]);
  return out;
}

function salvage(line: Omit<RejectedLine, 'file'>, file: string): UnreplayableLine {
  return { file, ...line, ...salvageLine(line.text) };
}

/** A parsed line that can be replayed: an account, a numeric charge, a positive whole seq (older lines have none). */
function isEntry(value: unknown): value is LedgerEntry {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const e = value as Partial<LedgerEntry>;
  if (typeof e.account_id !== 'string' || e.account_id === '') return false;
  if (e.seq !== undefined && !(typeof e.seq === 'number' && Number.isInteger(e.seq) && e.seq > 0)) return false;
  if (e.charged_credits !== undefined && !(typeof e.charged_credits === 'number' && Number.isFinite(e.charged_credits))) return false;
  return true;
}

/**
 * Reads a ledger file line by line (1 MB at a time): each whole entry goes to `visit`; a line
 * that does not parse or is not an entry is collected, with the seq and credits its text
 * still shows, never silently skipped. A torn last line is reported too (its offset in `tornAt`).
 */
export function readLedgerFile(file: string, name: string, visit: (entry: LedgerEntry) => void): LedgerFileReport {
  const unreplayable: UnreplayableLine[] = [];
  const { end, tornAt } = readLogLines(file, (line: LogLine) => {
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      unreplayable.push(salvage({ line: line.number, offset: line.offset, text: line.text }, name));
      return;
    }
    if (isEntry(value)) visit(value);
    else unreplayable.push(salvage({ line: line.number, offset: line.offset, text: line.text }, name));
  });
  return tornAt === undefined ? { end, unreplayable } : { end, tornAt, unreplayable };
}
