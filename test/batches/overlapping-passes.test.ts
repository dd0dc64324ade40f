import { setImmediate as turn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { get, makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';
import { until } from '../helpers/until.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/**
 * A batch created while the executor is in the middle of a look for work: the wake must not
 * start a second look beside it. Two looks both read the first batch as free, both claim it
 * (the same owner may renew its own lease) and both run it: validated twice, and a native
 * batch submitted to the provider twice (seen once in CI as two upstream batches).
 */
describe('the batch executor looks for work one pass at a time', () => {
  it('a wake during a pass runs the next pass after it: the batch it was claiming runs once', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const upload = async (name: string) => {
      const line = JSON.stringify({ custom_id: name, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: name } ] } });
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([line]), `${name}.jsonl`);
      return ((await (await gw!.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string }).id;
    };
    const create = async (file: string) =>
      ((await (await gw!.fetch('/v1/batches', post({ input_file_id: file, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string }).id;
    const [fileX, fileY] = [await upload('x'), await upload('y')];

    const batches = gw.gateway.deps.store.batches;
    const claimable = batches.claimable.bind(batches);
    const claim = batches.claim.bind(batches);
    const update = batches.update.bind(batches);
    let looks = 0;
    let lookingAtOnce = 0;
    let mostAtOnce = 0;
    batches.claimable = async (now) => {
      looks++;
      mostAtOnce = Math.max(mostAtOnce, ++lookingAtOnce);
      try {
        return await claimable(now);
      } finally {
        lookingAtOnce--;
      }
    };
    // The first claim (of X, the only batch then) waits, its pass still open, until the wake for Y has had its chance.
    let x: string | undefined;
    let held: (() => void) | undefined;
    const claimsOfX: number[] = [];
    batches.claim = async (id, owner, now, leaseMs) => {
      x ??= id;
      if (id === x) {
        claimsOfX.push(now);
        if (claimsOfX.length === 1) await new Promise<void>((resolve) => (held = resolve));
      }
      return claim(id, owner, now, leaseMs);
    };
    const startsOf = new Map<string, number>();
    batches.update = async (id, patch) => {
      if (patch.status === 'in_progress') startsOf.set(id, (startsOf.get(id) ?? 0) + 1);
      return update(id, patch);
    };

    const idX = await create(fileX);
    await until('a pass to claim X', async () => (held ? true : undefined));
    const looksBefore = looks;
    const idY = await create(fileY);
    // The wake's 0 ms timer fires before this one; a second pass would be looking by the next turn.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await turn();
    if (looks > looksBefore) await until('the second pass to claim X too', async () => (claimsOfX.length >= 2 ? true : undefined));
    expect(x).toBe(idX);
    held!();

    for (const id of [idX, idY]) {
      await until(`batch ${id} to complete`, async () => {
        const batch = (await (await gw!.fetch(`/v1/batches/${id}`, get(key))).json()) as { status: string };
        return batch.status === 'completed' ? true : undefined;
      });
    }
    expect(mostAtOnce).toBe(1);
    expect(startsOf.get(idX)).toBe(1);
    expect(startsOf.get(idY)).toBe(1);
  }, 30_000);
});

describe('the batch executor stops after the look for work under way', () => {
  it('a batch claimed by that look while stopping is waited for and given back (its lease lingered before)', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const line = JSON.stringify({ custom_id: 'x', method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: 'x' }] } });
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([line]), 'x.jsonl');
    const file = ((await (await gw.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string }).id;

    const batches = gw.gateway.deps.store.batches;
    const claim = batches.claim.bind(batches);
    let held: (() => void) | undefined;
    let claimed = false;
    batches.claim = async (id, owner, now, leaseMs) => {
      if (!held) await new Promise<void>((resolve) => (held = resolve));
      try {
        return await claim(id, owner, now, leaseMs);
      } finally {
        claimed = true;
      }
    };
    const id = ((await (await gw.fetch('/v1/batches', post({ input_file_id: file, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string }).id;
    await until('a look for work to claim the batch', async () => (held ? true : undefined));
    const executor = gw.gateway.deps.batches as unknown as { stop(): Promise<void> };
    const stopped = executor.stop();
    held!();
    await stopped;
    await until('the claim to have returned', async () => (claimed ? true : undefined));
    expect((await batches.get(id))?.lease ?? null).toBeNull();
  }, 30_000);
});
