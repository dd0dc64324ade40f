import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, spawnGateway } from '../helpers/spawn-gateway.ts';

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** `gateway <args>` on a pseudo-terminal (util-linux `script`), its screen as text. */
function runInPty(args: string[]) {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = execa('script', ['-qfec', command, '/dev/null'], { cwd: REPO_ROOT, reject: false, stdin: 'pipe', env: { TERM: 'xterm-256color' }, timeout: 90_000 });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, screen: () => out.replace(ANSI, ''), type: (keys: string) => child.stdin?.write(keys) };
}

/** The largest "(N total)" drawn so far. */
function sinceStart(screen: string): number {
  return Math.max(-1, ...[...screen.matchAll(/requests\/s\s*\d+\.\d\s*\(([\d,]+)\s*total\)/g)].map((m) => Number(m[1].replace(/,/g, ''))));
}

// Issue 11: the TUI Overview under a pseudo-terminal shows the live figures moving while requests run.
describe('observability: live activity in the TUI', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('shows requests/s, latency and the latest requests moving while requests run', { timeout: 90_000 }, async () => {
    const gateway = await spawnGateway({ config: { providers: { mock: { plugin: 'mock', latencyMs: 5 } } } });
    cleanups.push(() => gateway.stop());
    const tui = runInPty(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'tui', '--refresh', '0']);
    cleanups.push(async () => tui.child.kill());

    const waitUntil = async (check: () => boolean, what: string, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline || tui.child.exitCode !== null) throw new Error(`timed out waiting for ${what}:\n${tui.screen().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await waitUntil(() => sinceStart(tui.screen()) === 0, 'the live figures of an idle server');

    // Traffic from 4 clients until the test has seen enough, bounded by time rather than by a
    // count: 4 × 150 requests took ~1.4 s, about one poll of the Overview (1 s), so the count
    // could stop at its final total before it was drawn twice (then it never moves).
    let stop = false;
    let sending = 0;
    const trafficDeadline = Date.now() + 60_000;
    const send = async () => {
      sending += 1;
      for (let i = 0; !stop && Date.now() < trafficDeadline; i += 1) {
        const res = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: `hello ${i}` }] }),
        });
        await res.text();
      }
      sending -= 1;
    };
    const traffic = Promise.all([send(), send(), send(), send()]);
    try {
      await waitUntil(() => sinceStart(tui.screen()) > 0, 'a first count');
      const first = sinceStart(tui.screen());
      await waitUntil(() => sinceStart(tui.screen()) > first, 'the count to move');
      expect(sending, 'clients still sending when the count moved').toBeGreaterThan(0);
      const screen = tui.screen();
      expect(screen).toMatch(/requests\/s\s*[1-9]\d*\.\d/);
      expect(screen).toMatch(/latency\s*p50\s*\d+\.\d\s*ms\s*p95\s*\d+\.\d\s*ms/);
      expect(screen).toMatch(/mock\/echo\s*\(\d+\)/);
      expect(screen).toMatch(/\d\d:\d\d:\d\d\s*\/v1\/chat\/completions\s*mock\/echo\s*mock\s*200/);
    } finally {
      stop = true;
      await traffic;
    }
    tui.type('q');
    expect((await tui.child).exitCode).toBe(0);
  });
});
