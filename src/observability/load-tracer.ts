import type { RequestTracer } from './observer.ts';

/**
 * The OpenTelemetry tracer when the standard variables ask for one (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`
 * turn it off). Without them nothing of OpenTelemetry is even loaded.
 */
export async function loadTracer(env: NodeJS.ProcessEnv = process.env): Promise<RequestTracer | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const { createOtelTracer } = await import('./otel-tracer.ts');
  return createOtelTracer({ serviceName: env.OTEL_SERVICE_NAME || 'gateway' });
}
