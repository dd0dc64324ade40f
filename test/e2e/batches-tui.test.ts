import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { spawnGateway } from '../helpers/spawn-gateway.ts';

// The Batches tab against a real server: a running batch's progress moves on screen, and a
// cancel from the tab (after y) reaches the executor, which ends the batch cancelled.
describe('TUI Batches tab (real server, pseudo-terminal)', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('shows a running batch moving and cancels it after y', { timeout: 90_000 }, async () => {
    const gateway = await spawnGateway({ config: { providers: { slow: { plugin: 'mock', latencyMs: 150 } }, batches: { concurrency: 1 } } });
    cleanups.push(() => gateway.stop());
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key!, maxRetries: 0 });
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'slow/echo', messages: [{ role: 'user', content: 'hi' }] } }));
    const input = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'in.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });

    const tui = runInPty(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'tui', '--refresh', '1'], { size: { columns: 140, rows: 30 } });
    cleanups.push(async () => tui.child.kill());
    await tui.waitFor('Overview');
    tui.type('6');
    await tui.waitFor(new RegExp(`${batch.id}\\s+in_progress`));
    // The completed count under the table moves with the auto-refresh.
    const completed = () => Math.max(-1, ...[...tui.screen().matchAll(/in_progress · (\d+) completed, 0 failed, 300 total/g)].map((m) => Number(m[1])));
    await tui.waitFor(/in_progress · \d+ completed, 0 failed, 300 total/);
    const first = completed();
    const deadline = Date.now() + 20_000;
    while (completed() <= first && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(completed()).toBeGreaterThan(first);

    tui.type('x');
    await tui.waitFor(`Cancel batch ${batch.id}?`);
    tui.type('y');
    await tui.waitFor(new RegExp(`Batch ${batch.id} is (cancelling|cancelled)`));
    let ended = await client.batches.retrieve(batch.id);
    for (let i = 0; i < 200 && ended.status !== 'cancelled'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ended = await client.batches.retrieve(batch.id);
    }
    expect(ended.status).toBe('cancelled');
    expect(ended.request_counts!.completed).toBeGreaterThan(first);
    expect(ended.request_counts!.completed).toBeLessThan(300);
    await tui.waitFor(new RegExp(`${batch.id}\\s+cancelled`));
    tui.type('q');
    expect((await tui.child).exitCode).toBe(0);
  });
});
