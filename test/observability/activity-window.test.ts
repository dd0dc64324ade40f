import { describe, expect, it } from 'vitest';
import { ActivityWindow, Observer, type RequestRecord } from '../../src/observability/index.ts';

/** A finished record at `time` (epoch ms) lasting `durationMs`. */
function finished(observer: Observer, time: number, durationMs: number, fields: Partial<RequestRecord> = {}): RequestRecord {
  const record = observer.begin('r', '/v1/chat/completions', 'chat', 'chat');
  Object.assign(record, { time, durationMs, status: 200, ended: true }, fields);
  return record;
}

describe('the live activity window', () => {
  it('computes rates, error rate, percentiles, tokens, credits and tops over the last minute only', () => {
    const window = new ActivityWindow(100);
    const observer = new Observer({ window });
    const now = Date.now() + 120_000;
    window.consume(finished(observer, now - 90_000, 10, { model: 'old/x', provider: 'old' })); // outside the minute
    for (let i = 1; i <= 20; i += 1) {
      window.consume(finished(observer, now - i * 1000, i * 10, { model: i % 4 === 0 ? 'b/m' : 'a/m', provider: i % 4 === 0 ? 'b' : 'a', inputTokens: 10, outputTokens: 5, chargedCredits: 0.5, stream: i <= 2, ttfbMs: i * 5 }));
    }
    window.consume(finished(observer, now - 500, 5, { status: 429, errorCode: 'rate_limit_exceeded' }));
    window.consume(finished(observer, now - 400, 5, { internal: true }));
    const a = window.snapshot(2, [{ provider: 'b', model: 'b/m', openedAt: now - 1000 }], now);
    expect(a.requests).toBe(21);
    expect(a.errors).toBe(1);
    // 1 of 21: precise enough for the views' one-decimal percentage (4.8 %, not 5.0 %).
    expect(a.error_rate).toBe(0.0476);
    expect((a.error_rate * 100).toFixed(1)).toBe('4.8');
    expect(a.requests_per_second).toBe(1.1); // 11 ended in the last 10 s
    expect(a.latency_ms).toEqual({ p50: 100, p95: 190 });
    expect(a.ttft_ms).toEqual({ p50: 5, p95: 10 });
    expect(a.tokens_per_minute).toBe(300);
    expect(a.credits_per_minute).toBe(10);
    expect(a.top_models).toEqual([
      { model: 'a/m', requests: 15 },
      { model: 'b/m', requests: 5 },
    ]);
    expect(a.top_providers[0]).toEqual({ provider: 'a', requests: 15 });
    expect(a.open_circuits).toEqual([{ provider: 'b', model: 'b/m', openedAt: now - 1000 }]);
    expect(a.active_requests).toBe(2);
    expect(a.total_requests).toBe(22);
    expect(a.latest).toHaveLength(20);
    expect(a.latest[0]).toMatchObject({ status: 429, error_code: 'rate_limit_exceeded' });
  });

  it('keeps at most its capacity and computes rates over the span it still holds', () => {
    const window = new ActivityWindow(10);
    const observer = new Observer({ window });
    const now = Date.now() + 120_000;
    for (let i = 0; i < 50; i += 1) window.consume(finished(observer, now - 2000 + i * 20, 1));
    const a = window.snapshot(0, [], now);
    expect(a.requests).toBe(10);
    expect(a.total_requests).toBe(50);
    expect(a.window_seconds).toBeLessThan(2);
    expect(a.requests_per_second).toBeGreaterThan(5);
  });

  it('lists a request that failed before a model served by the model asked for, without tokens, and keeps no record', () => {
    const window = new ActivityWindow(10);
    const observer = new Observer({ window });
    const now = Date.now() + 120_000;
    const record = finished(observer, now - 100, 3, { status: 502, errorCode: 'provider_error', requestedModel: 'a/asked' });
    window.consume(record);
    record.status = 200; // the window copied what it needs when the record was emitted
    const a = window.snapshot(0, [], now);
    expect(a.latest).toEqual([{ time: now - 100, route: '/v1/chat/completions', model: 'a/asked', provider: null, status: 502, error_code: 'provider_error', duration_ms: 3, input_tokens: null, output_tokens: null, fallback_from: null }]);
    expect(a.top_models).toEqual([]);
    expect(a.errors).toBe(1);
  });

  // Before, the live figures had no word of fallbacks (only the answer's headers and the request log).
  it('counts the requests a fallback served, by the model that failed first and the one that served', () => {
    const window = new ActivityWindow(100);
    const observer = new Observer({ window });
    const now = Date.now() + 120_000;
    const served = (time: number, from: string | undefined, model: string) =>
      window.consume(finished(observer, time, 5, { model, provider: model.split('/')[0], fallback: from ? { from, reason: 'provider_error' } : undefined }));
    served(now - 90_000, 'a/x', 'b/y'); // since start, not in the minute
    served(now - 3000, 'a/x', 'b/y');
    served(now - 2000, 'a/x', 'b/y');
    served(now - 1000, 'a/x', 'c/z');
    served(now - 500, undefined, 'a/x');
    const a = window.snapshot(0, [], now);
    expect(a.fallbacks).toBe(3);
    expect(a.total_fallbacks).toBe(4);
    expect(a.top_fallbacks).toEqual([
      { from: 'a/x', to: 'b/y', requests: 2 },
      { from: 'a/x', to: 'c/z', requests: 1 },
    ]);
    expect(a.latest.map((r) => r.fallback_from)).toEqual([null, 'a/x', 'a/x', 'a/x']);
  });

  // Before, the dashboard's own calls (sign-in, the account views it polls) counted as requests, errors and latency.
  it("counts the dashboard's own calls apart from the traffic figures", () => {
    const window = new ActivityWindow(100);
    const observer = new Observer({ window });
    const now = Date.now() + 120_000;
    window.consume(finished(observer, now - 1000, 5, { model: 'a/x', provider: 'a' }));
    for (let i = 0; i < 3; i += 1) {
      const call = observer.begin('d', '/api/trpc/**', '', '', 'dashboard');
      Object.assign(call, { time: now - 900 + i, durationMs: 2, status: i === 0 ? 401 : 200, ended: true });
      window.consume(call);
    }
    const a = window.snapshot(observer.activeRequests, [], now);
    expect(a).toMatchObject({ requests: 1, total_requests: 1, errors: 0, dashboard_requests: 3 });
    expect(a.latest.map((r) => r.route)).toEqual(['/v1/chat/completions']);
    expect(observer.activeRequests).toBe(1); // the one client record begun above; dashboard calls are not in flight traffic
  });
});
