/**
 * A file's contents are read only as its answer is: an answer nobody reads (a HEAD, a client that
 * left before the body) holds no file descriptor. Linux (/proc/self/fd counts them).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';

let gw: TestGateway;
let key: string;
let fileId: string;

beforeAll(async () => {
  gw = await makeGateway();
  const account = await gw.account();
  key = account.key;
  const record = { id: `file-unread${Date.now()}`, accountId: account.accountId, bytes: 5, created_at: Math.floor(Date.now() / 1000), expires_at: null, filename: 'a.jsonl', purpose: 'batch' };
  fileId = (await gw.gateway.deps.store.files.create(record, Buffer.from('{}\n{}'))).id;
});
afterAll(() => gw?.close());

const openFiles = () => fs.readdirSync('/proc/self/fd').length;

describe.runIf(fs.existsSync('/proc/self/fd'))('a file content answer left unread', () => {
  it('opens no file', async () => {
    const before = openFiles();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await gw.fetch(`/v1/files/${fileId}/content`, { headers: { authorization: `Bearer ${key}` } }));
    expect(answers.every((res) => res.status === 200)).toBe(true);
    expect(openFiles() - before).toBeLessThan(5);
    // Read, the contents are all there.
    expect(await answers[0].text()).toBe('{}\n{}');
    for (const res of answers.slice(1)) await res.body?.cancel();
  });
});
