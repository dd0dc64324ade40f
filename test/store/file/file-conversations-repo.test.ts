import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileConversationsRepo } from '../../../src/store/file/file-conversations-repo.ts';
import type { ConversationItemsPage } from '../../../src/store/index.ts';

/** The file store's conversation files: one append-only file each (the backend-neutral contract: test/store/store.case.ts). */
describe('FileConversationsRepo', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-conv-'));
    dirs.push(dir);
    const problems: string[] = [];
    return { dir, problems, repo: new FileConversationsRepo(dir, (message) => problems.push(message)), file: (id: string) => path.join(dir, 'conversations', `${id}.jsonl`) };
  };
  /** The ids of a page's items (none for no conversation or an unknown cursor). */
  const idsOf = (page: ConversationItemsPage | 'no_item' | undefined) => (typeof page === 'object' ? page.data.map((entry) => entry.id) : page);
  const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const item = (id: string, text: string) => ({ id, item: JSON.stringify({ type: 'message', id, status: 'completed', role: 'user', content: [{ type: 'input_text', text }] }) });

  it('a line a killed process left half written is not read, and is cut off before the next append', async () => {
    const { repo, file } = open();
    await repo.create({ id: 'conv_t', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_1', 'one')]);
    await repo.flush();
    fs.appendFileSync(file('conv_t'), '{"n":1,"bytes":99,"items":[{"type":"mess');
    expect(await repo.get('a', 'conv_t')).toMatchObject({ itemCount: 1 });
    expect((await repo.items('a', 'conv_t'))?.map((entry) => entry.id)).toEqual(['msg_1']);
    await repo.append('a', 'conv_t', [item('msg_2', 'two')]);
    await repo.flush();
    expect(fs.readFileSync(file('conv_t'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown)).toHaveLength(3);
    const reopened = new FileConversationsRepo(path.dirname(path.dirname(file('conv_t'))));
    expect((await reopened.items('a', 'conv_t'))?.map((entry) => entry.id)).toEqual(['msg_1', 'msg_2']);
    expect(await reopened.bytesOf('a')).toBe(fs.statSync(file('conv_t')).size);
  });

  it('reading the conversation alone (not its items) counts what a full read counts, deletes and lines without a count included', async () => {
    const { repo, file } = open();
    await repo.create({ id: 'conv_c', accountId: 'a', createdAt: 1, metadata: {} }, []);
    await repo.append('a', 'conv_c', [item('msg_1', 'one'), item('msg_2', 'twotwo')]);
    await repo.deleteItem('a', 'conv_c', 'msg_1');
    await repo.flush();
    // An append written without its count (the first format of these files) is read by parsing it.
    fs.appendFileSync(file('conv_c'), `{"items":[${item('msg_3', 'three').item}]}\n`);
    const light = await repo.get('a', 'conv_c');
    expect(light).toMatchObject({ itemCount: 2, itemBytes: Buffer.byteLength(item('msg_2', 'twotwo').item) + Buffer.byteLength(item('msg_3', 'three').item) });
    expect((await repo.items('a', 'conv_c'))?.map((entry) => entry.id)).toEqual(['msg_2', 'msg_3']);
    expect(await repo.append('a', 'conv_c', [item('msg_4', 'four')], { maxItems: 2, maxBytes: 1_000_000 })).toBe('full');
  });

  it("what deleted items and replaced metadata leave in the file is rewritten away: the file, and the account's bytes, follow what the conversation holds", async () => {
    const { dir, repo, file } = open();
    await repo.create({ id: 'conv_g', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_keep', 'kept')]);
    const big = 'x'.repeat(10_000);
    // Before: five rounds of 20 items of 10 kB added and deleted left a 1 MB file for one small item, counted in the quota.
    for (let round = 0; round < 5; round += 1) {
      const ids = Array.from({ length: 20 }, (_, n) => `msg_${round}_${n}`);
      await repo.append('a', 'conv_g', ids.map((id) => item(id, big)));
      for (const id of ids) await repo.deleteItem('a', 'conv_g', id);
    }
    for (let n = 0; n < 200; n += 1) await repo.setMetadata('a', 'conv_g', { round: String(n), note: 'y'.repeat(500) });
    await repo.flush();
    const size = fs.statSync(file('conv_g')).size;
    expect(size).toBeLessThan(80_000);
    expect(await repo.bytesOf('a')).toBe(size);
    expect(await repo.get('a', 'conv_g')).toMatchObject({ itemCount: 1, itemBytes: Buffer.byteLength(item('msg_keep', 'kept').item), metadata: { round: '199' } });
    expect(await repo.items('a', 'conv_g')).toEqual([JSON.parse(item('msg_keep', 'kept').item)]);
    // What was rewritten reads back the same after a restart, and takes further changes.
    const reopened = new FileConversationsRepo(dir);
    expect(await reopened.get('a', 'conv_g')).toMatchObject({ itemCount: 1, metadata: { round: '199' } });
    expect(await reopened.bytesOf('a')).toBe(size);
    await reopened.append('a', 'conv_g', [item('msg_after', 'after')]);
    expect((await reopened.items('a', 'conv_g'))?.map((entry) => entry.id)).toEqual(['msg_keep', 'msg_after']);
    expect(fs.readdirSync(path.join(dir, 'conversations'))).toEqual(['conv_g.jsonl']);
  });

  it("many items added with rename look for their ids in one pass over the file, not one pass each", async () => {
    const { repo } = open();
    await repo.create({ id: 'conv_m', accountId: 'a', createdAt: 1, metadata: {} }, []);
    for (let round = 0; round < 10; round += 1) await repo.append('a', 'conv_m', Array.from({ length: 20 }, (_, n) => item(`msg_${round}_${n}`, 'x'.repeat(100_000))));
    const rename = (entry: { id: string; item: string }) => ({ id: `${entry.id}r`, item: entry.item.replace(entry.id, `${entry.id}r`) });
    const turn = (tag: string) => Array.from({ length: 2000 }, (_, n) => item(`msg_${tag}_${n}`, 'y'));
    let started = performance.now();
    await repo.append('a', 'conv_m', turn('plain'));
    const plain = performance.now() - started;
    started = performance.now();
    // Before: 2,000 searches of the 20 MB file, 7.7 s of event loop (about 190 times the plain append).
    const added = await repo.append('a', 'conv_m', [...turn('new'), item('msg_0_0', 'taken')], undefined, rename);
    const renamed = performance.now() - started;
    expect(renamed).toBeLessThan(Math.max(10 * plain, 500));
    expect(typeof added !== 'string' && added.added.at(-1)!.id).toBe('msg_0_0r');
  });

  it('a file with no whole first line (garbage, or cut inside it) is reported when read, and kept', async () => {
    const { repo, file, problems } = open();
    await repo.create({ id: 'conv_g', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_1', 'one')]);
    await repo.create({ id: 'conv_h', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_1', 'one')]);
    await repo.flush();
    fs.writeFileSync(file('conv_g'), 'garbage\u0000 not json');
    fs.truncateSync(file('conv_h'), 20);
    const reopened = new FileConversationsRepo(path.dirname(path.dirname(file('conv_g'))), (message) => problems.push(message));
    expect(await reopened.get('a', 'conv_g')).toBeUndefined();
    expect(await reopened.get('a', 'conv_h')).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/conversation conv_g: .*no whole first line.*kept/), expect.stringMatching(/conversation conv_h: .*no whole first line.*kept/)]);
    expect(fs.readFileSync(file('conv_g'), 'utf8')).toBe('garbage\u0000 not json');
    expect(fs.statSync(file('conv_h')).size).toBe(20);
  });

  it('a file holding a line that cannot be read is never rewritten: the line is kept for whoever repairs it', async () => {
    const { repo, file } = open();
    await repo.create({ id: 'conv_d', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_keep', 'kept')]);
    await repo.flush();
    fs.appendFileSync(file('conv_d'), '{"n":1,"bytes":40,"items":[{"type":"message","id":"msg_lost" DAMAGED\n');
    for (let n = 0; n < 200; n += 1) await repo.setMetadata('a', 'conv_d', { round: String(n), note: 'y'.repeat(500) });
    await repo.flush();
    expect(fs.readFileSync(file('conv_d'), 'utf8')).toContain('DAMAGED');
    // Read alone or with its items, the conversation counts the same: the damaged line's items are in neither.
    expect(await repo.get('a', 'conv_d')).toMatchObject({ metadata: { round: '199' }, itemCount: 1, itemBytes: Buffer.byteLength(item('msg_keep', 'kept').item) });
    expect((await repo.items('a', 'conv_d'))?.map((entry) => entry.id)).toEqual(['msg_keep']);
  });

  it('a change writes its line without reading the file, and a page or an item reads its own lines only', async () => {
    const { repo, file, problems } = open();
    await repo.create({ id: 'conv_r', accountId: 'a', createdAt: 1, metadata: {} }, [item('msg_0', 'zero')]);
    for (let n = 1; n <= 50; n += 1) await repo.append('a', 'conv_r', [item(`msg_${n}`, `t${n}`)]);
    await repo.flush();
    // Line 3 (msg_1's) spoiled in place, its size kept: only a read of that line would see it.
    const text = fs.readFileSync(file('conv_r'), 'utf8').split('\n');
    text[2] = 'x'.repeat(text[2].length);
    fs.writeFileSync(file('conv_r'), text.join('\n'));
    // Before: every change and read parsed the whole file (and reported the spoiled line each time).
    expect(await repo.append('a', 'conv_r', [item('msg_51', 't51')], { maxItems: 100, maxBytes: 1_000_000 }, (entry) => ({ ...entry, id: `${entry.id}r` }))).toMatchObject({ itemCount: 52 });
    expect(await repo.setMetadata('a', 'conv_r', { k: 'v' })).toMatchObject({ itemCount: 52 });
    expect(await repo.deleteItem('a', 'conv_r', 'msg_40')).toMatchObject({ itemCount: 51 });
    expect(await repo.get('a', 'conv_r')).toMatchObject({ itemCount: 51, metadata: { k: 'v' } });
    expect(idsOf(await repo.page('a', 'conv_r', { limit: 5, order: 'desc' }))).toEqual(['msg_51', 'msg_50', 'msg_49', 'msg_48', 'msg_47']);
    expect(idsOf(await repo.page('a', 'conv_r', { limit: 3, order: 'asc', after: 'msg_38' }))).toEqual(['msg_39', 'msg_41', 'msg_42']);
    expect(await repo.item('a', 'conv_r', 'msg_3')).toMatchObject({ id: 'msg_3' });
    expect(problems).toEqual([]);
    // A read of the spoiled line says so, and leaves out what it cannot read.
    expect(idsOf(await repo.page('a', 'conv_r', { limit: 3, order: 'asc' }))).toEqual(['msg_0', 'msg_2']);
    expect(problems).toHaveLength(1);
  });

  it("a file an earlier version rewrote (every item in one line) is rewritten in short lines when first read, and reads the same", async () => {
    const { dir, repo, file, problems } = open();
    await repo.close();
    const big = (n: number) => item(`msg_${n}`, `${n}:${'z'.repeat(100_000)}`);
    const items = Array.from({ length: 30 }, (_, n) => big(n));
    const bytes = items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
    // As an earlier version's rewrite left it: the conversation, all its items in one 3 MB line, then later changes.
    fs.writeFileSync(
      file('conv_old'),
      `${JSON.stringify({ id: 'conv_old', accountId: 'a', createdAt: 5, metadata: { v: '1' } })}\n` +
        `{"n":30,"bytes":${bytes},"items":[${items.map((entry) => entry.item).join(',')}]}\n` +
        `${JSON.stringify({ deleted: 'msg_3', bytes: Buffer.byteLength(items[3].item) })}\n` +
        `${JSON.stringify({ metadata: { v: '2' } })}\n`,
    );
    const kept = items.filter((entry) => entry.id !== 'msg_3');
    const reopened = new FileConversationsRepo(dir, (message) => problems.push(message));
    expect(idsOf(await reopened.page('a', 'conv_old', { limit: 4, order: 'desc', after: 'msg_28' }))).toEqual(['msg_27', 'msg_26', 'msg_25', 'msg_24']);
    await reopened.flush();
    const rewritten = lines(file('conv_old'));
    expect(rewritten.length).toBeGreaterThan(10);
    for (const line of rewritten) expect(Buffer.byteLength(line) < 256 * 1024 || (JSON.parse(line) as { n?: number }).n === 1).toBe(true);
    expect(JSON.parse(rewritten[0])).toEqual({ id: 'conv_old', accountId: 'a', createdAt: 5, metadata: { v: '2' } });
    const record = { itemCount: 29, itemBytes: bytes - Buffer.byteLength(items[3].item), metadata: { v: '2' } };
    expect(await reopened.get('a', 'conv_old')).toMatchObject(record);
    expect(await reopened.items('a', 'conv_old')).toEqual(kept.map((entry) => JSON.parse(entry.item)));
    expect(await reopened.bytesOf('a')).toBe(fs.statSync(file('conv_old')).size);
    const again = new FileConversationsRepo(dir);
    expect(await again.get('a', 'conv_old')).toMatchObject(record);
    expect(idsOf(await again.page('a', 'conv_old', { limit: 2, order: 'asc', after: 'msg_2' }))).toEqual(['msg_4', 'msg_5']);
    expect(problems).toEqual([]);
  });

  it('keeps working past the conversations it keeps indexed, and after a rewrite moved every line', async () => {
    const { repo } = open();
    for (let n = 0; n < 80; n += 1) await repo.create({ id: `conv_${n}`, accountId: 'a', createdAt: 1, metadata: {} }, [item(`msg_${n}a`, 'a')]);
    for (let n = 0; n < 80; n += 1) await repo.append('a', `conv_${n}`, [item(`msg_${n}b`, 'b')]);
    for (let n = 0; n < 80; n += 1) expect((await repo.items('a', `conv_${n}`))?.map((entry) => entry.id)).toEqual([`msg_${n}a`, `msg_${n}b`]);
    // Added and deleted until the file is rewritten: the pages read the new file's lines.
    const big = 'x'.repeat(50_000);
    for (let round = 0; round < 4; round += 1) {
      await repo.append('a', 'conv_0', Array.from({ length: 10 }, (_, n) => item(`msg_tmp_${round}_${n}`, big)));
      for (let n = 0; n < 10; n += 1) await repo.deleteItem('a', 'conv_0', `msg_tmp_${round}_${n}`);
      await repo.append('a', 'conv_0', [item(`msg_keep_${round}`, 'k')]);
    }
    await repo.flush();
    expect(fs.statSync(path.join(repo.dir, 'conv_0.jsonl')).size).toBeLessThan(100_000);
    expect(idsOf(await repo.page('a', 'conv_0', { limit: 3, order: 'desc', after: 'msg_keep_3' }))).toEqual(['msg_keep_2', 'msg_keep_1', 'msg_keep_0']);
    expect(await repo.append('a', 'conv_0', [item('msg_last', 'l')])).toMatchObject({ itemCount: 7 });
    expect(idsOf(await repo.page('a', 'conv_0', { limit: 2, order: 'desc' }))).toEqual(['msg_last', 'msg_keep_3']);
  });
});
