import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileMediaRepo } from '../../../src/store/file/file-media-repo.ts';
import { FileStore } from '../../../src/store/file/file-store.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';
import { aMedia } from '../store.case.ts';

const root = tempDir('gw-log-');
let n = 0;
const freshDir = () => {
  const dir = path.join(root, `d${++n}`);
  fs.mkdirSync(dir);
  return dir;
};

describe('media.jsonl (append-only log)', () => {
  it('a torn last line is kept aside and cut; a garbage line is kept aside and skipped; both reported', async () => {
    const dir = freshDir();
    const { repo } = await FileMediaRepo.open(dir);
    const kept = await repo.create(aMedia('acct_a'));
    await repo.close();
    const file = path.join(dir, 'media.jsonl');
    const whole = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, `${whole}not json at all\n${whole.slice(0, 40)}`);

    const { repo: again, report } = await FileMediaRepo.open(dir);
    expect(report.records).toBe(1);
    expect(report.rejected.map((r) => [r.line, r.torn ?? false])).toEqual([
      [2, false],
      [-1, true],
    ]);
    expect(await again.get(kept.id)).toEqual(kept);
    // The torn tail is gone from the log; the next record starts on its own line.
    expect(fs.readFileSync(file, 'utf8')).toBe(`${whole}not json at all\n`);
    const next = await again.create(aMedia('acct_a'));
    await again.close();
    const side = fs.readFileSync(path.join(dir, 'media.rejected.jsonl'), 'utf8').trim().split('\n');
    expect(side.map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(['not json at all', whole.slice(0, 40)]);
    const { repo: third, report: thirdReport } = await FileMediaRepo.open(dir);
    expect(await third.get(next.id)).toEqual(next);
    expect(thirdReport.rejected).toHaveLength(1); // the garbage line, still in the log
    await third.close();
  });

  it('a line that is JSON but not a valid record stops the store with one line, file untouched', async () => {
    const dir = freshDir();
    const bad = { ...aMedia('acct_a'), status: 'exploded' };
    const text = `${JSON.stringify({ put: aMedia('acct_a') })}\n${JSON.stringify({ put: bad })}\n`;
    fs.writeFileSync(path.join(dir, 'media.jsonl'), text);
    await expect(FileStore.open(dir)).rejects.toThrow(/media\.jsonl line 2: status: .*The file is left as it is/);
    expect(fs.readFileSync(path.join(dir, 'media.jsonl'), 'utf8')).toBe(text);
  });

  it('compacts while writes go on: the file shrinks, every live record and every change made meanwhile stays', async () => {
    const dir = freshDir();
    const { repo } = await FileMediaRepo.open(dir);
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) ids.push((await repo.create(aMedia(`acct_${i % 3}`, { prompt: `p${i}`.padEnd(2_000, '.') }))).id);
    for (let round = 0; round < 5; round++) for (const id of ids.slice(0, 150)) await repo.update(id, { status: 'processing', error: `round ${round}` });
    for (const id of ids.slice(150, 250)) await repo.delete(id);
    const file = path.join(dir, 'media.jsonl');
    const before = fs.statSync(file).size;

    // Writes while compacting: creates, updates of copied records, deletes.
    const compacting = repo.compact();
    const during = await Promise.all([
      repo.create(aMedia('acct_new')),
      repo.update(ids[0], { status: 'completed' }),
      repo.delete(ids[260]),
      repo.update(ids[270], { prompt: 'changed meanwhile' }),
    ]);
    await compacting;
    const after = fs.statSync(file).size;
    expect(after).toBeLessThan(before / 3);

    const check = async (r: FileMediaRepo) => {
      expect((await r.get(during[0].id))?.accountId).toBe('acct_new');
      expect((await r.get(ids[0]))?.status).toBe('completed');
      expect(await r.get(ids[260])).toBeUndefined();
      expect((await r.get(ids[270]))?.prompt).toBe('changed meanwhile');
      expect((await r.get(ids[1]))?.error).toBe('round 4');
      expect(await r.get(ids[200])).toBeUndefined();
      expect((await r.get(ids[299]))?.prompt?.startsWith('p299')).toBe(true);
      expect((await r.list({ offset: 0, limit: 0 })).total).toBe(300 - 100 - 1 + 1);
    };
    await check(repo);
    await repo.close();
    const { repo: reopened } = await FileMediaRepo.open(dir);
    await check(reopened);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    await reopened.close();
  });
});
