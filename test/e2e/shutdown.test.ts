import { describe, expect, it } from 'vitest';
import { spawnGateway } from '../helpers/spawn-gateway.ts';

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight stream finish, stops accepting, flushes and exits 0', async () => {
    const gw = await spawnGateway({ config: { providers: { slow: { plugin: 'mock', chunkDelayMs: 100 } } } });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'slow/echo', stream: true, messages: [{ role: 'user', content: 'a b c d e f g h i j k l m n o' }] }),
    });
    expect(res.status).toBe(200);
    const reading = res.text();
    await new Promise((r) => setTimeout(r, 150));
    const exit = gw.stop();
    await new Promise((r) => setTimeout(r, 50));
    const refused = await fetch(`${gw.url}/health`).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
    const text = await reading;
    expect(text).toContain('data: [DONE]');
    expect(await exit).toBe(0);
  });
});
