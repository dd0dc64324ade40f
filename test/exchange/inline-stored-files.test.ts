import { describe, expect, it } from 'vitest';
import { inlineStoredFiles, storedFilesOf } from '../../src/exchange/index.ts';
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

/** The caller: account `acct`, with a key of every endpoint (or those given). */
const caller = (endpoints: string[] | null = null) => ({ account: { id: 'acct' }, key: { endpoints } }) as unknown as Parameters<typeof inlineStoredFiles>[4];

const naming = (ids: string[]) => {
  const body = { contents: [{ role: 'user', parts: ids.map((id) => ({ fileData: { fileUri: `files/${id}`, mimeType: 'text/plain' } })) }] };
  return { body, raw: JSON.stringify(body) };
};

describe('inlineStoredFiles', () => {
  it('puts the account’s file inline', async () => {
    const { deps } = depsWithOneFile();
    const out = await inlineStoredFiles(deps, 'gemini', naming(['f0']), ['f0'], caller());
    expect(out.body).toEqual({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'text/plain', data: Buffer.from('hello').toString('base64') } }] }] });
  });

  // Before: every id a request named was looked up at once (Promise.all), so one request naming
  // 100,000 made-up ids (a few MB of body) cost 100,000 store reads (PostgreSQL queries) before its 403.
  it('stops at the first file it cannot read: a request naming many made-up ids costs one read each up to it', async () => {
    const { deps, reads } = depsWithOneFile();
    const ids = ['f0', ...Array.from({ length: 10_000 }, (_, i) => `nope${i}`)];
    await expect(inlineStoredFiles(deps, 'gemini', naming(ids), ids, caller())).rejects.toMatchObject({ status: 403 });
    expect(reads).toEqual({ get: 2, content: 0 });
  });

  // Before: the bound counted each file once however many parts named it, so a body naming one
  // 300 KB file five times went upstream as 2 MB against a limit of 1 MB (a 10 MB file named
  // 200 times: 2.7 GB of base64 built in memory from a body of a few KB).
  it('counts a file once per part that names it against the body limit', async () => {
    const { deps, reads } = depsWithOneFile();
    const big: FileRecord = { id: 'f0', accountId: 'acct', bytes: 300_000, created_at: 0, expires_at: null, filename: 'a.bin', purpose: 'user_data', mimeType: 'image/png' };
    (deps.store.files as { get: unknown }).get = async () => {
      reads.get += 1;
      return big;
    };
    const twice = naming(['f0', 'f0']);
    const ids = storedFilesOf('gemini', twice.body, twice.raw);
    const out = await inlineStoredFiles(deps, 'gemini', twice, ids, caller());
    expect(JSON.stringify(out.body).match(/inlineData/g)).toHaveLength(2);
    // One read of the record and of its content, however many parts name it.
    expect(reads).toEqual({ get: 1, content: 1 });

    const five = naming(['f0', 'f0', 'f0', 'f0', 'f0']);
    await expect(inlineStoredFiles(deps, 'gemini', five, storedFilesOf('gemini', five.body, five.raw), caller())).rejects.toMatchObject({ code: 'request_too_large' });
  });
});
