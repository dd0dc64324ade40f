import { describe, expect, it } from 'vitest';
import { inlineStoredFiles } from '../../src/exchange/index.ts';
import type { ExchangeDeps } from '../../src/exchange/index.ts';
import type { FileRecord } from '../../src/store/index.ts';

/** A files store that counts its reads: one file of the account's, `f0`. */
function depsWithOneFile() {
  const reads = { get: 0, content: 0 };
  const own: FileRecord = { id: 'f0', accountId: 'acct', bytes: 5, created_at: 0, expires_at: null, filename: 'a.txt', purpose: 'user_data', mimeType: 'text/plain' };
  const files = {
    get: async (accountId: string, id: string) => {
      reads.get += 1;
      return accountId === own.accountId && id === own.id ? own : undefined;
    },
    content: async (accountId: string, id: string) => {
      reads.content += 1;
      return accountId === own.accountId && id === own.id ? Buffer.from('hello') : undefined;
    },
  };
  const deps = { store: { files }, config: { server: { bodyLimits: { inference: 1_000_000 } } }, clock: { now: () => 0 } } as unknown as Pick<ExchangeDeps, 'store' | 'config' | 'clock'>;
  return { deps, reads };
}

const naming = (ids: string[]) => {
  const body = { contents: [{ role: 'user', parts: ids.map((id) => ({ fileData: { fileUri: `files/${id}`, mimeType: 'text/plain' } })) }] };
  return { body, raw: JSON.stringify(body) };
};

describe('inlineStoredFiles', () => {
  it('puts the account’s file inline', async () => {
    const { deps } = depsWithOneFile();
    const out = await inlineStoredFiles(deps, 'gemini', naming(['f0']), ['f0'], 'acct');
    expect(out.body).toEqual({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'text/plain', data: Buffer.from('hello').toString('base64') } }] }] });
  });

  // Before: every id a request named was looked up at once (Promise.all), so one request naming
  // 100,000 made-up ids (a few MB of body) cost 100,000 store reads (PostgreSQL queries) before its 403.
  it('stops at the first file it cannot read: a request naming many made-up ids costs one read each up to it', async () => {
    const { deps, reads } = depsWithOneFile();
    const ids = ['f0', ...Array.from({ length: 10_000 }, (_, i) => `nope${i}`)];
    await expect(inlineStoredFiles(deps, 'gemini', naming(ids), ids, 'acct')).rejects.toMatchObject({ status: 403 });
    expect(reads).toEqual({ get: 2, content: 0 });
  });
});
