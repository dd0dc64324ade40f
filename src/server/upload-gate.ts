import { GatewayError } from '../errors/index.ts';

/**
 * Uploads in flight on this instance, all accounts together and per account: an upload holds a
 * temp file and a store write for as long as its client sends, so both are bounded
 * (`storage.uploadsConcurrency`, `storage.uploadsPerAccount`; docs/limits.md).
 */
export class UploadGate {
  private total = 0;
  private readonly perAccount = new Map<string, number>();
  /** Bytes of the file quota held by uploads in flight, per account (`storage.fileQuotaBytes`). */
  private readonly held = new Map<string, number>();

  constructor(private readonly limits: { uploadsConcurrency: number; uploadsPerAccount: number }) {}

  /** Takes a place for one upload of `accountId`, or throws 503 (instance full) / 429 (account full); returns its release. */
  enter(accountId: string): () => void {
    const mine = this.perAccount.get(accountId) ?? 0;
    if (mine >= this.limits.uploadsPerAccount) {
      throw new GatewayError('rate_limit_exceeded', `At most ${this.limits.uploadsPerAccount} uploads of one account run at once (storage.uploadsPerAccount); wait for one to finish.`, {
        retryAfter: 1,
        details: { limit: 'storage.uploadsPerAccount' },
      });
    }
    if (this.total >= this.limits.uploadsConcurrency) {
      throw new GatewayError('service_unavailable', `The gateway is receiving ${this.total} uploads already (storage.uploadsConcurrency); retry shortly.`, {
        retryAfter: 1,
        details: { limit: 'storage.uploadsConcurrency' },
      });
    }
    this.total += 1;
    this.perAccount.set(accountId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perAccount.get(accountId) ?? 1) - 1;
      if (left <= 0) this.perAccount.delete(accountId);
      else this.perAccount.set(accountId, left);
    };
  }

  /** Holds `bytes` of the account's file quota for an upload in flight; returns its release. */
  reserve(accountId: string, bytes: number): () => void {
    this.add(accountId, bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.add(accountId, -bytes);
    };
  }

  /** Bytes of the account's file quota its uploads in flight on this instance hold. */
  reserved(accountId: string): number {
    return this.held.get(accountId) ?? 0;
  }

  private add(accountId: string, bytes: number): void {
    const left = (this.held.get(accountId) ?? 0) + bytes;
    if (left > 0) this.held.set(accountId, left);
    else this.held.delete(accountId);
  }
}
