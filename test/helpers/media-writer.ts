/**
 * A client that writes the largest Media Library records the API accepts, as fast as it can,
 * into accounts kept at their byte budget: each round creates a record with the longest
 * prompt and the largest parameters, then PATCHes it with the most result URLs; whenever the
 * library is full (429), the account's oldest record is deleted to make room. Run as its own
 * process (so its work does not delay the one measuring):
 *
 *   node --import tsx test/helpers/media-writer.ts <base url> <seconds> <session token>...
 *
 * Prints one JSON line when done: rounds, bytes sent, how often the library was full, and every
 * other non-2xx answer by status.
 */
import { MEDIA_LIMITS } from '../../src/media/media-limits.ts';

const [url, seconds, ...tokens] = process.argv.slice(2);
const end = Date.now() + Number(seconds) * 1000;
const prompt = 'p'.repeat(MEDIA_LIMITS.promptChars);
const parameters = { notes: 'n'.repeat(MEDIA_LIMITS.parametersBytes - 40) };
// As many URLs as a record may hold, as long as the record stays within its stored size.
const urls = Array.from({ length: MEDIA_LIMITS.resultUrls }, (_, i) => `https://cdn.example.test/${i}/${'u'.repeat(4_000)}`);
const create = JSON.stringify({ media_type: 'video', model: 'bench/video', prompt, parameters });
const patch = JSON.stringify({ status: 'completed', result_urls: urls });

let rounds = 0;
let bytes = 0;
let full = 0;
const failures: Record<string, number> = {};

/** One request; the answer is parsed only when the caller needs it (a record echoed back is not read). */
async function call(token: string, method: string, path: string, body?: string, parse = false): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (res.status === 429) full += 1;
  else if (res.status >= 300) failures[`${method} ${res.status}`] = (failures[`${method} ${res.status}`] ?? 0) + 1;
  if (body) bytes += body.length;
  return { status: res.status, json: parse && text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function write(token: string): Promise<void> {
  // The account's records, oldest first: the ones to make room with.
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const { json } = await call(token, 'GET', `/v1/media/generations?page=${page}&page_size=100`, undefined, true);
    const data = (json.data as Array<{ id: string }>) ?? [];
    ids.unshift(...data.map((r) => r.id).reverse());
    if (!json.has_more) break;
  }
  /** Makes room: the oldest record goes. */
  const dropOldest = async () => {
    const oldest = ids.shift();
    if (oldest) await call(token, 'DELETE', `/v1/media/generations/${oldest}`);
    return oldest !== undefined;
  };
  while (Date.now() < end) {
    let created = await call(token, 'POST', '/v1/media/generations', create, true);
    while (created.status === 429 && (await dropOldest())) created = await call(token, 'POST', '/v1/media/generations', create, true);
    if (created.status !== 201) continue;
    const id = created.json.id as string;
    let patched = await call(token, 'PATCH', `/v1/media/generations/${id}`, patch);
    while (patched.status === 429 && (await dropOldest())) patched = await call(token, 'PATCH', `/v1/media/generations/${id}`, patch);
    ids.push(id);
    if (patched.status === 200) rounds += 1;
  }
}

await Promise.all(tokens.map(write));
process.stdout.write(`${JSON.stringify({ rounds, bytes, full, failures })}\n`);
