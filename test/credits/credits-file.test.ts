import { afterEach, describe, expect, it } from 'vitest';
import { AccountGuards, type AdmissionRequest } from '../../src/accounts/index.ts';
import type { Settlement } from '../../src/pipeline/types.ts';
import type { UsageLedger } from '../../src/store/index.ts';
import { makeGateway, type TestGateway } from '../accounts/make-gateway.ts';
import { describeCreditsContract } from './credits.case.ts';

/** The in-process engine: the file store's credit book and usage.jsonl. */
describeCreditsContract('file store (in process)', { config: async () => ({}) });

describe('file store: a request id admitted again while its first run goes on', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  /** An account of 100 credits, a line of mock/echo at 1 credit an output token, and the next ledger line's write made to wait and then fail (ENOSPC). */
  async function rerunOnFullDisk(prefix: string) {
    gw = await makeGateway({ providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } });
    const guards = gw.gateway.deps.guards as AccountGuards;
    const { accountId } = await gw.account({ credits: 100, tier: 'enterprise', key: { limit: 1_000 } });
    const account = gw.gateway.deps.store.cache.account(accountId)!;
    const [key] = await gw.gateway.deps.store.keys.list(accountId);
    const requestId = `${prefix}-${Date.now()}`;
    const line: AdmissionRequest = { auth: { account, key }, method: 'POST', route: '/v1/chat/completions', clientAddress: '::1', model: 'mock/echo', estimatedInputTokens: 0, maxOutputTokens: 30, requestId };
    const registry = gw.gateway.deps.registry;
    const usage = (outputTokens: number) => ({ model: registry.get('mock/echo')!, usage: { inputTokens: 0, outputTokens }, estimated: false, aborted: false }) as Settlement;
    const balance = async () => (await guards.usageViews.credits(account)).data.credits;
    // The next line joins a group whose write then fails (ENOSPC).
    const ledger = (guards.credits as unknown as { o: { ledger: UsageLedger } }).o.ledger;
    const append = ledger.appendToGroup.bind(ledger);
    let fail!: (error: Error) => void;
    ledger.appendToGroup = (input) => {
      ledger.appendToGroup = append;
      return { entry: { seq: 0, ...input }, written: new Promise<void>((_resolve, reject) => (fail = reject)) };
    };
    const diskFull = () => fail(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    return { guards, requestId, line, usage, balance, diskFull };
  }

  it("the second run's settlement waits for the first run's ledger line: when that write fails (a full disk), the second run is charged, not neither", async () => {
    const { guards, requestId, line, usage, balance, diskFull } = await rerunOnFullDisk('rerun');
    const first = await guards.admit(line);
    const second = await guards.admit({ ...line });
    const firstSettled = first.settle(usage(10)).then(() => 'recorded', (e: { status?: number }) => e.status);
    const secondSettled = second.settle(usage(20));
    diskFull();
    expect(await firstSettled).toBe(503);
    // The second run's answer is sent: it is the run that is charged (before: charged 0, the request billed by nobody).
    expect(await secondSettled).toMatchObject({ cost: 20, charged: 20 });
    expect(await balance()).toMatchObject({ balance: 80, reserved: 0, total_used: 20 });
    expect(await guards.billedRequests(requestId)).toEqual(new Set([requestId]));
  });

  it('charges it once when the first line fails and the run that takes the charge over writes its line at once (alone in flight)', async () => {
    const { guards, line, usage, balance, diskFull } = await rerunOnFullDisk('rerun3');
    const first = await guards.admit(line);
    const second = await guards.admit({ ...line });
    const firstSettled = first.settle(usage(10)).then(() => 'recorded', (e: { status?: number }) => e.status);
    // The second run settles alone in flight (its line, should it take the charge over, is written at once).
    const secondSettled = second.settle(usage(20));
    // A third run of the id, admitted and settled while the first line is still in its group.
    const third = await guards.admit({ ...line });
    const thirdSettled = third.settle(usage(20));
    diskFull();
    expect(await firstSettled).toBe(503);
    const charged = [await secondSettled, await thirdSettled].map((settled) => (settled as { charged: number }).charged);
    expect(charged.sort()).toEqual([0, 20]);
    expect(await balance()).toMatchObject({ balance: 80, reserved: 0, total_used: 20 });
    // Nothing of the id is remembered once every run of it is done.
    const engine = guards.credits as unknown as { billedRuns: Map<string, unknown>; waitingRuns: Map<string, unknown>; openRuns: Map<string, unknown> };
    expect([engine.billedRuns.size, engine.waitingRuns.size, engine.openRuns.size]).toEqual([0, 0, 0]);
  });
});
