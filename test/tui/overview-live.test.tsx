import './interactive-env.ts';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActivitySnapshot } from '../../src/tui/core/index.ts';
import { fakeAdminApi } from './fake-admin-api.ts';
import { renderWithAdmin } from './render-with-admin.tsx';

/** A snapshot after `n` polls: the figures grow with every poll. */
function snapshot(n: number): ActivitySnapshot {
  return {
    now: Date.UTC(2026, 0, 15, 12, 0, n),
    uptime_seconds: 60 + n,
    window_seconds: 60,
    active_requests: 2,
    total_requests: 100 + n * 10,
    requests_per_second: 10 + n,
    error_rate: 0.25,
    requests: 40,
    errors: 10,
    latency_ms: { p50: 120.5 + n, p95: 480 },
    ttft_ms: { p50: 35, p95: 90.25 },
    tokens_per_minute: 12_345 + n,
    credits_per_minute: 1.5,
    top_models: [{ model: 'openai/gpt-4.1', requests: 30 }],
    top_providers: [{ provider: 'openai', requests: 30 }],
    fallbacks: 3,
    total_fallbacks: 7 + n,
    top_fallbacks: [{ from: 'openai/gpt-4.1', to: 'ant/claude-4', requests: 3 }],
    dashboard_requests: 0,
    open_circuits: [{ provider: 'p1', model: 'p1/m1', openedAt: Date.UTC(2026, 0, 15, 11, 59) }],
    latest: Array.from({ length: 12 }, (_, i) => ({
      time: Date.UTC(2026, 0, 15, 12, 0, 59 - i),
      route: '/v1/chat/completions',
      model: i === 0 ? `model-${n}` : 'openai/gpt-4.1',
      provider: 'openai',
      status: i === 1 ? 503 : 200,
      error_code: i === 1 ? 'provider_unavailable' : null,
      duration_ms: 100 + i,
      input_tokens: 10,
      output_tokens: 20,
      fallback_from: null,
    })),
  };
}

describe('Overview: live activity', () => {
  let unmount: (() => void) | undefined;
  afterEach(() => unmount?.());

  it('shows the server figures and the latest requests, polled every second', { timeout: 15_000 }, async () => {
    let polls = 0;
    const api = { ...fakeAdminApi(), activity: async () => snapshot(++polls) };
    // 30 rows: room for two of the latest requests under the figures (24 rows have room for one).
    const view = await renderWithAdmin(api, { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' }, size: { columns: 100, rows: 30 } });
    unmount = view.unmount;
    const first = await view.waitFor('requests/s');
    expect(first).toContain('11.0');
    expect(first).toContain('25.0 %');
    expect(first).toContain('p50 121.5 ms  p95 480.0 ms');
    expect(first).toContain('p50 35.0 ms  p95 90.3 ms');
    expect(first).toContain('12,346');
    expect(first).toContain('openai/gpt-4.1 (30)');
    expect(first).toContain('p1/m1');
    expect(first).not.toContain('p1/p1/m1');
    expect(first).toContain('model-1');
    expect(first).toMatch(/openai\s+503\s+101.0 ms/);
    expect(first).toContain('(0 active)'); // the record totals stay on screen beside the live figures
    // A second later the figures have moved.
    const later = await view.waitFor('model-2', 3000);
    expect(later).toContain('12.0');
    expect(polls).toBeGreaterThanOrEqual(2);
  });

  // Before, a request a fallback served was invisible here (only its answer's headers and the request log said so).
  it('shows the fallbacks of the last minute, since start, and which model fell back to which', async () => {
    const api = { ...fakeAdminApi(), activity: async () => snapshot(1) };
    const view = await renderWithAdmin(api, { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' }, size: { columns: 140, rows: 40 } });
    unmount = view.unmount;
    const frame = await view.waitFor('fallbacks');
    expect(frame).toMatch(/fallbacks\s+3 \(8 total\) openai\/gpt-4\.1 → ant\/claude-4 \(3\)/);
  });

  // Found by a newcomer: gateway status has a FALLBACK FROM column and the Operator page "(fallback from …)", but a
  // latest request a fallback served read here as any other.
  it('a latest request a fallback served names the model that failed first', async () => {
    const base = snapshot(1);
    const latest = base.latest.map((r, i) => (i === 2 ? { ...r, model: 'ant/claude-4', provider: 'ant', fallback_from: 'openai/gpt-4.1' } : r));
    const api = { ...fakeAdminApi(), activity: async () => ({ ...base, latest }) };
    const view = await renderWithAdmin(api, { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' }, size: { columns: 140, rows: 40 } });
    unmount = view.unmount;
    const frame = await view.waitFor('requests/s');
    expect(frame).toMatch(/FALLBACK FROM/);
    expect(frame).toMatch(/^\d\d:\d\d:\d\d\s+\/v1\/chat\/completions\s+ant\/claude-4\s+ant\s+200\s+102\.0 ms\s+10\/20\s+openai\/gpt-4\.1\s*$/m);
    expect(frame).toMatch(/^\d\d:\d\d:\d\d\s+\/v1\/chat\/completions\s+openai\/gpt-4\.1\s+openai\s+200\s+103\.0 ms\s+10\/20\s+-\s*$/m); // served by its first choice
  });

  it("the mode line is whole beside the live figures: the server's URL and the auto-refresh, not cut at the column's edge", async () => {
    const api = { ...fakeAdminApi(), activity: async () => snapshot(1) };
    const url = 'https://gateway-01.internal.example.com:8787';
    const view = await renderWithAdmin(api, { connection: { mode: 'server', url, dataDir: '/srv/gateway/a-long-data-directory/.gateway' }, refreshMs: 5000 });
    unmount = view.unmount;
    const frame = await view.waitFor('requests/s');
    expect(frame).toMatch(new RegExp(`mode\\s+server ${url.replace(/\./g, '\\.')} \\(auto-refresh every 5 s\\)`));
    expect(frame).toContain('/srv/gateway/a-long-data-directory/.gateway');
    expect(frame).toMatch(/accounts\s+1\s+requests\/s/); // the totals stay beside the live figures
  });

  it('on a short terminal every row it shows is whole, in its place: 80×24, 90×30, 100×24', { timeout: 30_000 }, async () => {
    const api = { ...fakeAdminApi(), activity: async () => snapshot(1) };
    const connection = { mode: 'server' as const, url: 'http://127.0.0.1:8787', dataDir: '/srv/gateway/.gateway' };
    for (const [columns, rows] of [[80, 24], [90, 30], [100, 24]]) {
      // The same screen on a terminal tall enough for all of it: what the short one shows is its top, row for row.
      const tall = await renderWithAdmin(api, { connection, size: { columns, rows: 80 } });
      const whole = (await tall.waitFor('model-1')).split('\n');
      tall.unmount();
      const view = await renderWithAdmin(api, { connection, size: { columns, rows } });
      unmount = view.unmount;
      const frame = (await view.waitFor('requests/s')).split('\n');
      view.unmount();
      expect(frame.length, `${columns}×${rows}`).toBeLessThan(rows);
      expect(frame[2].trim(), `${columns}×${rows}: the row under the tabs`).toBe('');
      expect(frame.at(-1), `${columns}×${rows}`).toMatch(/^1-6 or ←\/→ tabs/);
      const shown = frame.slice(0, -1).filter((l) => l.trim() !== '' && !/^\d\d:\d\d:\d\d /.test(l));
      const expected = whole.filter((l) => l.trim() !== '' && !/^\d\d:\d\d:\d\d /.test(l)).slice(0, shown.length);
      expect(shown, `${columns}×${rows}`).toEqual(expected);
      for (const label of ['Connection', 'mode', 'data dir', 'Records', 'accounts', 'credit balance', 'Live', 'requests/s']) expect(frame.join('\n'), `${columns}×${rows}`).toMatch(new RegExp(`(^|  )${label}\\b`, 'm'));
    }
  });

  it('names the route of each latest request, so one without a model (a model list, a job poll) says what it was', async () => {
    const base = snapshot(1);
    const latest = [{ ...base.latest[0], route: '/v1/videos/:id', model: null, provider: null, input_tokens: null, output_tokens: null }, ...base.latest.slice(1)];
    const api = { ...fakeAdminApi(), activity: async () => ({ ...base, latest }) };
    const view = await renderWithAdmin(api, { connection: { mode: 'server', url: 'http://127.0.0.1:8787', dataDir: '/d' }, size: { columns: 120, rows: 40 } });
    unmount = view.unmount;
    const frame = await view.waitFor('ROUTE');
    expect(frame).toMatch(/TIME\s+ROUTE\s+MODEL\s+PROVIDER\s+STATUS/);
    expect(frame).toMatch(/12:00:59\s+\/v1\/videos\/:id\s+-\s+-\s+200/);
    expect(frame).toMatch(/12:00:58\s+\/v1\/chat\/completions\s+openai\/gpt-4\.1\s+openai\s+503/);
  });

  it('says live figures need a server in local mode, and never polls', async () => {
    let polls = 0;
    const api = { ...fakeAdminApi(), activity: async () => snapshot(++polls) };
    const view = await renderWithAdmin(api);
    unmount = view.unmount;
    await view.waitFor('no server is running');
    expect(polls).toBe(0);
  });
});
