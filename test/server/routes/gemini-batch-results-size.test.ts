/**
 * A Gemini batch whose results pass what one JavaScript string holds (2^29 characters, ~512 MB):
 * its responses file (`files/batch-…:download`) and its operation (`batches/{id}`, inlined
 * responses) are answered whole, their bytes as Google's; JSON.stringify of the whole threw
 * ("Invalid string length"), a 500. The batches are written through the store port: five results
 * of 110 MiB each. Run in a process of its own (vitest.config.ts ISOLATED): it holds a few GB.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchRecord } from '../../../src/store/index.ts';
import { makeGateway, type TestGateway } from '../../accounts/make-gateway.ts';
import { aBatch } from '../../store/store.case.ts';

const LINES = 5;
/** 5 x 110 MiB: past V8's longest string (536,870,888 characters). */
const TEXT_BYTES = 110 * 1024 * 1024;
const ENDPOINT = '/v1beta/models/**';

let gw: TestGateway;
let key: string;
let fileBatch: string;
let inlineBatch: string;

const id = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;

/** One output line: a 200 whose GenerateContentResponse holds `TEXT_BYTES` of text. */
function outputLine(i: number): Buffer {
  const head = `{"id":"line-${i}","custom_id":"request-${i}","response":{"status_code":200,"request_id":"r${i}","body":{"candidates":[{"content":{"role":"model","parts":[{"text":"`;
  const tail = `"}]},"finishReason":"STOP"}]}},"error":null}\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(TEXT_BYTES, i % 2 === 0 ? 'a' : 'b'), Buffer.from(tail)]);
}

beforeAll(async () => {
  gw = await makeGateway();
  const account = await gw.account();
  key = account.key;
  const { store } = gw.gateway.deps;
  const now = Math.floor(Date.now() / 1000);
  const file = async (content: Buffer, purpose: string) =>
    (await store.files.create({ id: id('file-'), accountId: account.accountId, bytes: content.length, created_at: now, expires_at: null, filename: `${purpose}.jsonl`, purpose }, content)).id;
  const input = Buffer.from(
    Array.from({ length: LINES }, (_, i) => `${JSON.stringify({ custom_id: `request-${i}`, method: 'POST', url: ENDPOINT, body: { model: 'mock/echo', contents: [{ parts: [{ text: 'hi' }] }] }, key: `k${i}` })}\n`).join(''),
  );
  const inputId = await file(input, 'batch');
  const outputId = await file(Buffer.concat(Array.from({ length: LINES }, (_, i) => outputLine(i))), 'batch_output');
  const batch = (extra: Partial<BatchRecord>): BatchRecord =>
    aBatch(account.accountId, {
      id: id('batch_'),
      keyId: account.keyId,
      endpoint: ENDPOINT,
      input_file_id: inputId,
      status: 'completed',
      output_file_id: outputId,
      created_at: now,
      completed_at: now,
      request_counts: { total: LINES, completed: LINES, failed: 0 },
      face: 'gemini',
      model: 'mock/echo',
      ...extra,
    });
  fileBatch = (await store.batches.create(batch({ inputFile: 'files/uploaded' }))).id;
  inlineBatch = (await store.batches.create(batch({}))).id;
}, 120_000);
afterAll(() => gw?.close());

/** The answer's bytes, read in chunks: the test makes no string of the whole either. */
async function answer(path: string): Promise<{ status: number; bytes: Buffer }> {
  const res = await gw.fetch(path, { headers: { 'x-goog-api-key': key } });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Each text's length and first character, read from the bytes without one string of them all. */
function texts(bytes: Buffer, lines: Buffer[]): Array<[number, string]> {
  expect(bytes.length).toBeGreaterThan(LINES * TEXT_BYTES);
  return lines.map((line) => {
    const parsed = JSON.parse(line.toString('utf8')) as { key?: string; response: { candidates: Array<{ content: { parts: Array<{ text: string }> } }> } };
    const text = parsed.response.candidates[0].content.parts[0].text;
    return [text.length, text[0]];
  });
}

const expected = Array.from({ length: LINES }, (_, i): [number, string] => [TEXT_BYTES, i % 2 === 0 ? 'a' : 'b']);

describe('a Gemini batch whose results pass 512 MB', () => {
  it('its responses file downloads whole, a line per request in order', async () => {
    const { status, bytes } = await answer(`/download/v1beta/files/batch-${fileBatch.slice('batch_'.length)}:download?alt=media`);
    expect(status).toBe(200);
    const lines: Buffer[] = [];
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(10, start);
      lines.push(bytes.subarray(start, end));
      start = end + 1;
    }
    expect(lines).toHaveLength(LINES);
    expect(texts(bytes, lines)).toEqual(expected);
    expect(lines[3].subarray(0, 12).toString('utf8')).toBe('{"key":"k3",');
  }, 120_000);

  it('its operation answers its inlined responses whole', async () => {
    const { status, bytes } = await answer(`/v1beta/batches/${inlineBatch}`);
    expect(status).toBe(200);
    const head = bytes.subarray(0, 300).toString('utf8');
    expect(head).toMatch(new RegExp(`^\\{"name":"batches/${inlineBatch}","metadata":\\{`));
    // The responses, cut from the bytes between their known edges: each is whole JSON. Google's
    // operation holds its output twice (metadata.output and response).
    const marker = Buffer.from('{"key":"k');
    const close = Buffer.from('"finishReason":"STOP"}]}}');
    const lines: Buffer[] = [];
    for (let at = bytes.indexOf(marker); at >= 0; at = bytes.indexOf(marker, at + 1)) lines.push(bytes.subarray(at, bytes.indexOf(close, at) + close.length));
    expect(lines).toHaveLength(2 * LINES);
    expect(texts(bytes, lines.slice(0, LINES))).toEqual(expected);
    expect(texts(bytes, lines.slice(LINES))).toEqual(expected);
    expect(bytes.subarray(-120).toString('utf8')).toMatch(/\]\}\}\}$/);
  }, 120_000);
});
