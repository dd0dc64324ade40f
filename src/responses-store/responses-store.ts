import fs from 'node:fs';
import path from 'node:path';
import type { ChatRequest, ChatResponse } from '../ir/types.ts';

/** A response kept for `previous_response_id` and `GET /v1/responses/{id}`. */
export interface StoredResponse {
  id: string;
  accountId: string;
  createdAt: number;
  /** The request as sent upstream: history already prepended, so one hop rebuilds a chain. */
  request: ChatRequest;
  response: ChatResponse;
}

export interface ResponsesStore {
  save(record: StoredResponse): void;
  get(id: string): Promise<StoredResponse | undefined>;
  delete(id: string): Promise<boolean>;
  flush(): Promise<void>;
}

const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

/**
 * One JSON file per response under `<dataDir>/responses/`, written in the background (never
 * waited on by the request path) and cached in memory for the follow-ups that come soon after.
 */
export class FileResponsesStore implements ResponsesStore {
  private readonly dir: string;
  private readonly cache = new Map<string, StoredResponse>();
  private readonly pending = new Set<Promise<void>>();

  constructor(dataDir: string, private readonly cacheSize = 1000) {
    this.dir = path.join(dataDir, 'responses');
    fs.mkdirSync(this.dir, { recursive: true });
  }

  save(record: StoredResponse): void {
    if (!SAFE_ID.test(record.id)) return;
    this.remember(record);
    const file = path.join(this.dir, `${record.id}.json`);
    const write = fs.promises
      .writeFile(file + '.tmp', JSON.stringify(record))
      .then(() => fs.promises.rename(file + '.tmp', file))
      .catch(() => undefined)
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    if (!SAFE_ID.test(id)) return undefined;
    const cached = this.cache.get(id);
    if (cached) return cached;
    try {
      const record = JSON.parse(await fs.promises.readFile(path.join(this.dir, `${id}.json`), 'utf8')) as StoredResponse;
      this.remember(record);
      return record;
    } catch {
      return undefined;
    }
  }

  async delete(id: string): Promise<boolean> {
    if (!SAFE_ID.test(id)) return false;
    this.cache.delete(id);
    await this.flush();
    try {
      await fs.promises.rm(path.join(this.dir, `${id}.json`));
      return true;
    } catch {
      return false;
    }
  }

  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private remember(record: StoredResponse): void {
    this.cache.delete(record.id);
    this.cache.set(record.id, record);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
  }
}
