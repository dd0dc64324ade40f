import { describe, expect, it } from 'vitest';
import { FileResponsesRepo } from '../../../src/store/file/index.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

describe('stored responses: bytes per account', () => {
  it('a response deleted while the start-up count reads the directory is not counted', async () => {
    const dir = tempDir('gw-responses-bytes-');
    const first = new FileResponsesRepo(dir);
    const ids = Array.from({ length: 400 }, (_, i) => `resp_${String(i).padStart(4, '0')}`);
    for (const id of ids) await first.save({ id, accountId: 'acct_1', createdAt: Date.now(), request: '{}', response: JSON.stringify({ id, text: 'x'.repeat(200) }) });
    await first.flush();
    expect(await first.bytesOf('acct_1')).toBeGreaterThan(400 * 200);
    // A restart: the count reads every file while the client deletes them all.
    const restarted = new FileResponsesRepo(dir);
    const deleted = await Promise.all(ids.map((id) => restarted.delete('acct_1', id)));
    expect(deleted.every(Boolean)).toBe(true);
    expect(await restarted.bytesOf('acct_1')).toBe(0);
  });
});
