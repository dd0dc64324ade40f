// Before, a request served by a fallback (the config's chain or the request's own `models`) was
// seen only in its answer's headers and the request log: the admin procedure `activity` behind
// `gateway status`, the TUI and the dashboard had no fallback figure, and no series said which
// model fell back to which.
import { describe, expect, it } from 'vitest';
import { adminRouter } from '../../src/admin/index.ts';
import { GatewayMetrics, Observer } from '../../src/observability/index.ts';

describe('the admin procedure `activity`: fallbacks', () => {
  it('counts requests a fallback served, by the model that failed first and the one that served; the metrics say the same', async () => {
    const metrics = new GatewayMetrics({ active: () => 0, circuits: () => [], processMetrics: false });
    const observer = new Observer({ metrics });
    const request = (fallback: boolean) => {
      const record = observer.begin('req', '/v1/chat/completions', 'chat', 'chat');
      record.requestedModel = 'down/flaky';
      if (fallback) {
        record.attemptStarted('down', 'down/flaky', 'flaky');
        record.attemptFailed('down', 'down/flaky', 'provider_unavailable');
        record.attemptStarted('oc', 'oc/gpt-4.1', 'gpt-4.1');
        record.attemptSucceeded('oc', 'oc/gpt-4.1');
      } else {
        record.attemptStarted('oc', 'oc/gpt-4.1', 'gpt-4.1');
        record.attemptSucceeded('oc', 'oc/gpt-4.1');
      }
      observer.end(record, 200);
    };
    request(true);
    request(true);
    request(false);
    const admin = adminRouter.createCaller({ store: {} as never, clock: { now: Date.now }, config: {} as never, dataDir: '/d', registry: async () => ({}) as never, credits: {} as never, activity: () => observer.activity() });
    const live = await admin.activity();
    expect(live).toMatchObject({ requests: 3, fallbacks: 2, total_fallbacks: 2, top_fallbacks: [{ from: 'down/flaky', to: 'oc/gpt-4.1', requests: 2 }] });
    expect(live!.latest.map((r) => r.fallback_from)).toEqual([null, 'down/flaky', 'down/flaky']);
    const text = await metrics.render();
    expect(text).toContain('gateway_model_fallbacks_total{from_provider="down",from_model="flaky",to_provider="oc",to_model="gpt-4.1"} 2');
    // The existing series keeps its name and labels.
    expect(text).toContain('gateway_fallbacks_total{from_provider="down",to_provider="oc",reason="provider_unavailable"} 2');
  });
});
