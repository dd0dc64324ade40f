/**
 * Anthropic's and Gemini's batch lists read one page from the store, as `/v1/batches` does: a
 * list of 20 reads about 20 records, not every batch the account ever made (it read them all,
 * 100 at a time, then paged in memory). Their cursors keep working: Anthropic's `after_id` and
 * `before_id`, Google's `pageToken`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchesQuery } from '../../../src/store/index.ts';
import { aBatch } from '../../store/store.case.ts';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';

const MADE = 250;

let gw: TestGateway;
let key: string;
/** Records the store handed to list calls since the last reset. */
let read = 0;
const made: Record<'messages' | 'gemini', string[]> = { messages: [], gemini: [] };

beforeAll(async () => {
  gw = await makeGateway();
  const account = await gw.account();
  key = account.key;
  const batches = gw.gateway.deps.store.batches;
  for (let i = 0; i < MADE; i++) {
    const face = i % 2 === 0 ? 'messages' : 'gemini';
    const record = await batches.create(
      aBatch(account.accountId, {
        id: `batch_list${String(i).padStart(4, '0')}`,
        keyId: account.keyId,
        endpoint: face === 'messages' ? '/v1/messages' : '/v1beta/models/**',
        status: 'in_progress',
        created_at: 1_700_000_000 + i,
        request_counts: { total: 1, completed: 0, failed: 0 },
        face,
        ...(face === 'gemini' ? { model: 'mock/echo' } : {}),
      }),
    );
    made[face].unshift(record.id); // newest first
  }
  const list = batches.list.bind(batches);
  batches.list = async (query: BatchesQuery) => {
    const page = await list(query);
    read += page.data.length;
    return page;
  };
});
afterAll(() => gw.close());

async function get(path: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  read = 0;
  const res = await gw.fetch(path, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

const anthropic = { 'x-api-key': '', 'anthropic-version': '2023-06-01' };
const ids = (list: unknown) => (list as Array<{ id?: string; name?: string }>).map((b) => b.id ?? b.name!.slice('batches/'.length));

describe('a face lists its batches a page at a time', () => {
  it("Anthropic's /v1/messages/batches: limit, after_id, before_id", async () => {
    const headers = { ...anthropic, 'x-api-key': key };
    const first = await get('/v1/messages/batches?limit=20', headers);
    expect(ids(first.data)).toEqual(made.messages.slice(0, 20));
    expect(first).toMatchObject({ has_more: true, first_id: made.messages[0], last_id: made.messages[19] });
    expect(read).toBeLessThanOrEqual(21);
    const next = await get(`/v1/messages/batches?limit=20&after_id=${made.messages[19]}`, headers);
    expect(ids(next.data)).toEqual(made.messages.slice(20, 40));
    expect(read).toBeLessThanOrEqual(21);
    const back = await get(`/v1/messages/batches?limit=20&before_id=${made.messages[40]}`, headers);
    expect(ids(back.data)).toEqual(made.messages.slice(20, 40));
    expect(back.has_more).toBe(true);
    expect(read).toBeLessThanOrEqual(21);
    const last = await get(`/v1/messages/batches?limit=1000&after_id=${made.messages[100]}`, headers);
    expect(ids(last.data)).toEqual(made.messages.slice(101));
    expect(last.has_more).toBe(false);
  });

  it("Gemini's /v1beta/batches: pageSize, pageToken", async () => {
    const headers = { 'x-goog-api-key': key };
    const seen: string[] = [];
    let token: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await get(`/v1beta/batches?pageSize=50${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`, headers);
      expect(read).toBeLessThanOrEqual(51);
      seen.push(...ids(page.operations));
      token = page.nextPageToken as string | undefined;
      if (!token) break;
    }
    expect(seen).toEqual(made.gemini);
    const refused = await gw.fetch('/v1beta/batches?pageToken=..%2F..', { headers });
    expect(refused.status).toBe(400);
  });
});
