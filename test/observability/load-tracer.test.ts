import { describe, expect, it } from 'vitest';
import { loadTracer } from '../../src/observability/index.ts';

describe('loadTracer', () => {
  it('loads nothing without an OTLP endpoint, or when the SDK is disabled', async () => {
    expect(await loadTracer({})).toBeUndefined();
    expect(await loadTracer({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(await loadTracer({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('loads the OpenTelemetry tracer when either endpoint variable is set', async () => {
    for (const env of [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' }]) {
      const tracer = await loadTracer(env);
      expect(tracer?.constructor.name).toBe('OtelTracer');
      await tracer!.close();
    }
  });
});
