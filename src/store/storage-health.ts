import fs from 'node:fs';
import path from 'node:path';
import { GatewayError } from '../errors/index.ts';
import { FILE_MODE } from '../util/index.ts';

/** What /health says about the data dir. */
export interface StorageState {
  writable: boolean;
  /** Why not, while not writable (the error code and what failed to be written). */
  error?: string;
  /** Since when (unix seconds), while not writable. */
  since?: number;
}

/** How often the data dir is tried again while it cannot be written (ms). */
const PROBE_MS = 500;
/** The probe writes this much: room for a group of ledger lines, not just one byte. */
const PROBE_BYTES = 64 * 1024;

/**
 * Whether the data dir can be written (issue 27 §2: no answer without its record). A record
 * that cannot be written (a usage ledger line, a settlement outbox line, a stored Response)
 * says so here; from then on billed requests are refused with 503 `service_unavailable`
 * naming storage, before any upstream call, and `/health` reports it. Every `PROBE_MS` a
 * probe file is written and removed in the background; once it succeeds the gateway serves
 * again by itself.
 */
export class StorageHealth {
  private failure: { error: string; since: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** The probe under way (it writes and removes a file in the data dir): close() waits for it. */
  private probing: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly log?: (message: string, fields?: Record<string, unknown>) => void,
  ) {}

  /** A write to the data dir failed: refuse billed requests until a probe succeeds. */
  failed(error: unknown, what: string): void {
    const code = unwritableCode(error) ?? (error as NodeJS.ErrnoException)?.code ?? String(error);
    if (!this.failure) {
      this.failure = { error: `${code} writing ${what}`, since: Math.floor(Date.now() / 1000) };
      this.log?.(`storage: the data dir cannot be written (${code} writing ${what}); billed requests answer 503 until it can`, { data_dir: this.dataDir });
    }
    this.timer ??= setInterval(() => {
      if (this.probing || !this.failure) return;
      this.probing = this.probe().finally(() => (this.probing = undefined));
    }, PROBE_MS);
    this.timer.unref();
  }

  get writable(): boolean {
    return this.failure === undefined;
  }

  state(): StorageState {
    return this.failure ? { writable: false, error: this.failure.error, since: this.failure.since } : { writable: true };
  }

  /** Throws 503 service_unavailable while the data dir cannot be written. */
  check(): void {
    const failure = this.failure;
    if (!failure) return;
    throw new GatewayError('service_unavailable', `Storage is unavailable: the gateway's data dir cannot be written (${failure.error}), so requests that are billed are refused until it can; retry shortly.`, { retryAfter: 5 });
  }

  private async probe(): Promise<void> {
    const file = path.join(this.dataDir, '.storage-probe');
    try {
      await fs.promises.writeFile(file, Buffer.alloc(PROBE_BYTES), { mode: FILE_MODE });
      await fs.promises.rm(file, { force: true });
      this.log?.('storage: the data dir can be written again; serving billed requests', { data_dir: this.dataDir, since: this.failure?.since });
      this.failure = undefined;
      clearInterval(this.timer);
      this.timer = undefined;
    } catch {
      await fs.promises.rm(file, { force: true }).catch(() => undefined);
    }
  }

  /** Stops probing; resolves once a probe under way has removed its file. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.probing;
  }
}

/** Error codes of a write the data dir does not take now: full, over quota, read-only, not permitted. */
const UNWRITABLE = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);
/** System calls of file writes (an EACCES of `connect` is the network's, not the data dir's). */
const WRITE_CALLS = new Set(['open', 'write', 'writev', 'rename', 'mkdir', 'fsync', 'fdatasync', 'ftruncate', 'truncate', 'unlink', 'rmdir', 'rm', 'copyfile', 'link', 'close', 'chmod', 'fchmod']);

/** The code of a file write the data dir refused (the error or one of its causes), if that is what `error` is. */
export function unwritableCode(error: unknown): string | undefined {
  let at = error;
  for (let depth = 0; at && typeof at === 'object' && depth < 4; depth += 1) {
    const { code, syscall } = at as NodeJS.ErrnoException;
    if (typeof code === 'string' && UNWRITABLE.has(code) && typeof syscall === 'string' && WRITE_CALLS.has(syscall)) return code;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The 503 a request gets when a record it writes (an upload, a conversation, a batch, a
 * db.json change) could not be written: a full or read-only data dir is a state the client
 * retries after, not an unexpected error (500, which clients do not retry). Undefined for
 * any other error.
 */
export function dataDirUnwritable(error: unknown): GatewayError | undefined {
  const code = unwritableCode(error);
  if (!code) return undefined;
  return new GatewayError('service_unavailable', `Storage is unavailable: the gateway's data dir could not be written (${code}); retry shortly.`, { retryAfter: 5, cause: error });
}

/** The 503 a request gets when its own record could not be written (it is not charged). */
export function recordNotWritten(error: unknown, what: string): GatewayError {
  const code = (error as NodeJS.ErrnoException)?.code ?? String(error);
  return new GatewayError('service_unavailable', `Storage is unavailable: this request's ${what} could not be written to the data dir (${code}); it was not charged. Retry shortly.`, { retryAfter: 5 });
}
