import diagnostics from 'node:diagnostics_channel';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RequestTracer } from './observer.ts';
import type { RequestRecord } from './request-record.ts';

/** The spans of one request: the server span, attempts in flight, the attempt that served. */
interface RequestSpans {
  server: Span;
  context: Context;
  attempts: Map<string, { span: Span; upstreamModel: string }>;
  served: { span: Span; upstreamModel: string } | undefined;
}

/** What undici publishes on `undici:request:create` (the parts used here). */
interface UndiciRequestMessage {
  request: { origin?: string | URL; addHeader(name: string, value: string): unknown };
}

const getter: TextMapGetter<Record<string, string | undefined>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

function spansOf(record: RequestRecord): RequestSpans | undefined {
  return record.trace as RequestSpans | undefined;
}

function usageAttributes(record: RequestRecord): Attributes {
  const attributes: Attributes = {};
  if (record.inputTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = record.inputTokens;
  if (record.outputTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = record.outputTokens;
  if (record.finishReason !== undefined) attributes['gen_ai.response.finish_reasons'] = [record.finishReason];
  return attributes;
}

/**
 * OpenTelemetry traces over OTLP/HTTP: a server span per request (child of the client's W3C
 * `traceparent` when it sent one) and a client span per upstream attempt named
 * `"{operation} {model}"` with the GenAI attributes. The attempt's `traceparent` goes to the
 * upstream: undici announces each request it creates on a diagnostics channel, and the one
 * created while an attempt is being dispatched (synchronously, as every plugin using the kit's
 * HTTP client does) gets the header. Loaded only when an OTLP endpoint is configured.
 */
export class OtelTracer implements RequestTracer {
  private readonly propagator = new W3CTraceContextPropagator();
  /** The attempt whose HTTP request is being created right now. */
  private dispatching: Span | undefined;
  private readonly onRequestCreated = (message: unknown) => this.inject(message as UndiciRequestMessage);

  constructor(
    private readonly provider: BasicTracerProvider,
    private readonly tracer: Tracer,
  ) {
    diagnostics.subscribe('undici:request:create', this.onRequestCreated);
  }

  startRequest(record: RequestRecord, traceparent: string | undefined, tracestate: string | undefined): void {
    const parent = traceparent ? this.propagator.extract(ROOT_CONTEXT, { traceparent, tracestate }, getter) : ROOT_CONTEXT;
    const attributes: Attributes = { 'http.request.method': record.method, 'http.route': record.route };
    if (record.operation) attributes['gen_ai.operation.name'] = record.operation;
    const server = this.tracer.startSpan(`${record.method} ${record.route}`, { kind: SpanKind.SERVER, attributes }, parent);
    const spans: RequestSpans = { server, context: trace.setSpan(parent, server), attempts: new Map(), served: undefined };
    record.trace = spans;
  }

  attemptStarted(record: RequestRecord, provider: string, model: string, upstreamModel: string): void {
    const spans = spansOf(record);
    if (!spans) return;
    const span = this.tracer.startSpan(
      `${record.operation || 'chat'} ${upstreamModel}`,
      { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': record.operation || 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': upstreamModel } },
      spans.context,
    );
    spans.attempts.set(model, { span, upstreamModel });
    this.dispatching = span;
  }

  attemptDispatched(): void {
    this.dispatching = undefined;
  }

  attemptEnded(record: RequestRecord, _provider: string, model: string, errorCode: string | undefined): void {
    const spans = spansOf(record);
    const attempt = spans?.attempts.get(model);
    if (!spans || !attempt) return;
    spans.attempts.delete(model);
    if (errorCode === undefined) {
      // The serving attempt lasts until the response has ended (a stream's last byte).
      spans.served = attempt;
      return;
    }
    attempt.span.setAttribute('error.type', errorCode);
    attempt.span.setStatus({ code: SpanStatusCode.ERROR });
    attempt.span.end();
  }

  endRequest(record: RequestRecord): void {
    const spans = spansOf(record);
    if (!spans) return;
    const usage = usageAttributes(record);
    const served = spans.served;
    if (served) {
      served.span.setAttributes(usage);
      served.span.setAttribute('gen_ai.response.model', record.responseModel ?? served.upstreamModel);
      if (record.errorCode !== undefined) {
        served.span.setAttribute('error.type', record.errorCode);
        served.span.setStatus({ code: SpanStatusCode.ERROR });
      }
      served.span.end();
    }
    for (const { span } of spans.attempts.values()) span.end(); // a hedge race's cancelled loser
    const server = spans.server;
    server.setAttribute('http.response.status_code', record.status);
    if (record.requestedModel !== undefined && record.errorCode !== 'model_not_found') server.setAttribute('gen_ai.request.model', record.requestedModel);
    if (record.provider !== undefined) server.setAttribute('gen_ai.provider.name', record.provider);
    if (served) server.setAttribute('gen_ai.response.model', record.responseModel ?? served.upstreamModel);
    server.setAttributes(usage);
    if (record.errorCode !== undefined) {
      server.setAttribute('error.type', record.errorCode);
      if (record.status >= 500 || record.status < 400) server.setStatus({ code: SpanStatusCode.ERROR });
    }
    server.end();
  }

  async close(): Promise<void> {
    diagnostics.unsubscribe('undici:request:create', this.onRequestCreated);
    await this.provider.shutdown();
  }

  /** Gives the HTTP request of the attempt being dispatched its `traceparent`, and the span its server address. */
  private inject(message: UndiciRequestMessage): void {
    const span = this.dispatching;
    if (!span) return;
    this.dispatching = undefined;
    const carrier: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, { set: (c, k, v) => (c[k] = v) });
    for (const name in carrier) message.request.addHeader(name, carrier[name]);
    const origin = message.request.origin;
    if (origin) {
      const url = new URL(String(origin));
      span.setAttribute('server.address', url.hostname);
      if (url.port) span.setAttribute('server.port', Number(url.port));
    }
  }
}

/**
 * The OTLP/HTTP tracer. The exporter reads the standard variables itself
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * headers, timeout); the batch processor `OTEL_BSP_*`; the service name `OTEL_SERVICE_NAME`.
 */
export function createOtelTracer(options: { serviceName: string }): OtelTracer {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  return new OtelTracer(provider, provider.getTracer('gateway'));
}
