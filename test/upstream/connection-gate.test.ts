import { describe, expect, it } from 'vitest';
import { ConnectionGate } from '../../src/upstream/connection-gate.ts';
import { FastAbortController } from '../../src/util/abort.ts';

describe('ConnectionGate', () => {
  it('grants at once under the cap, queues in order, refuses when the queue is full', async () => {
    const gate = new ConnectionGate('p', { maxConnections: 1, maxQueued: 1, queueTimeoutMs: 60_000 });
    expect(gate.acquire(undefined)).toBeUndefined();
    const queued = gate.acquire(undefined)!;
    await expect(gate.acquire(undefined)).rejects.toMatchObject({ code: 'service_unavailable', status: 503, retryAfter: 1 });
    expect(gate.stats()).toEqual({ inUse: 1, queued: 1, refusedFull: 1, refusedTimeout: 0 });
    gate.release(); // handed to the waiting call
    await queued;
    expect(gate.stats()).toMatchObject({ inUse: 1, queued: 0 });
    gate.release();
    expect(gate.stats()).toMatchObject({ inUse: 0 });
  });

  it('refuses a call that waited queueTimeoutMs, and frees the place of one whose client left', async () => {
    const gate = new ConnectionGate('p', { maxConnections: 1, maxQueued: 5, queueTimeoutMs: 20 });
    gate.acquire(undefined);
    await expect(gate.acquire(undefined)).rejects.toMatchObject({ code: 'service_unavailable', message: expect.stringContaining('20 ms') });
    const client = new FastAbortController();
    const left = gate.acquire(client)!;
    client.abort();
    await expect(left).rejects.toMatchObject({ code: 'provider_timeout' });
    expect(gate.stats()).toEqual({ inUse: 1, queued: 0, refusedFull: 0, refusedTimeout: 1 });
  });
});
