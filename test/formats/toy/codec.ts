// The toy format's bodies: `{ say: [{ who, text }], max }` in, `{ id, model, reply, why, used }`
// out; streams are begin / piece / end records; errors are `{ trouble: { code, message } }`.
import { buildErrorEnvelope, GatewayError, type ChatRequest, type ChatResponse, type FinishReason, type FormatCodec, type Message, type StreamPart, type Usage, type WireRecord } from 'gateway/plugin-kit';

type Json = Record<string, unknown>;

function parse(data: string): Json {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === 'object' ? (value as Json) : {};
  } catch {
    return {};
  }
}

function textOf(content: Message['content'] | ChatResponse['content']): string {
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const WHY: Record<string, FinishReason> = { done: 'stop', cut: 'length' };
const whyOf = (reason: FinishReason): string => (reason === 'length' ? 'cut' : 'done');
const usageOf = (used: unknown): Usage | undefined => {
  const u = used as { in?: unknown; out?: unknown } | undefined;
  return typeof u?.in === 'number' && typeof u.out === 'number' ? { inputTokens: u.in, outputTokens: u.out } : undefined;
};
const usedOf = (usage: Usage) => ({ in: usage.inputTokens, out: usage.outputTokens });

function record(event: string, value: unknown): WireRecord {
  return { event, data: JSON.stringify(value) };
}

export const toyCodec: FormatCodec = {
  format: 'toy',
  decodeRequest(body, target) {
    const say = (body as Json | undefined)?.say;
    if (!target) throw new GatewayError('bad_request', 'The toy format reads the model from the path.');
    if (!Array.isArray(say) || say.length === 0) throw new GatewayError('validation_error', "'say' must be a non-empty list.", { details: { fields: { say: 'required' } } });
    const request: ChatRequest = { model: target.model, system: [], messages: [], stream: target.stream };
    for (const line of say as Json[]) {
      const text = String(line.text ?? '');
      if (line.who === 'rules') request.system.push({ type: 'text', text });
      else request.messages.push({ role: line.who === 'bot' ? 'assistant' : 'user', content: [{ type: 'text', text }] });
    }
    const max = (body as Json).max;
    if (typeof max === 'number') request.maxTokens = max;
    return request;
  },
  encodeRequest(request, options) {
    const say = [...request.system.map((part) => ({ who: 'rules', text: part.text })), ...request.messages.map((m) => ({ who: m.role === 'assistant' ? 'bot' : 'user', text: textOf(m.content) }))];
    return { say, max: request.maxTokens ?? options.defaultMaxTokens ?? 1024 };
  },
  decodeResponse(body) {
    const b = body as Json;
    return { id: String(b.id), model: String(b.model), created: 0, content: [{ type: 'text', text: String(b.reply ?? '') }], finishReason: WHY[String(b.why)] ?? 'stop', usage: usageOf(b.used) ?? { inputTokens: 0, outputTokens: 0 } };
  },
  encodeResponse(response) {
    return { id: response.id, model: response.model, reply: textOf(response.content), why: whyOf(response.finishReason), used: usedOf(response.usage) };
  },
  createStreamDecoder() {
    return {
      push(r: WireRecord): StreamPart[] {
        const data = parse(r.data);
        if (r.event === 'begin') return [{ type: 'start', id: String(data.id), model: String(data.model), created: 0 }, { type: 'text-start' }];
        if (r.event === 'piece') return [{ type: 'text-delta', text: String(data.text ?? '') }];
        if (r.event === 'end') {
          const usage = usageOf(data.used);
          return [{ type: 'text-end' }, { type: 'finish', finishReason: WHY[String(data.why)] ?? 'stop' }, ...(usage ? [{ type: 'usage' as const, usage }] : []), { type: 'end' }];
        }
        return [];
      },
      end: () => [],
    };
  },
  createStreamEncoder() {
    let why = 'done';
    let used = { in: 0, out: 0 };
    let failed = false;
    return {
      encode(part: StreamPart): WireRecord[] {
        // A trouble record ends the stream.
        if (failed) return [];
        if (part.type === 'start') return [record('begin', { id: part.id, model: part.model })];
        if (part.type === 'text-delta') return [record('piece', { text: part.text })];
        if (part.type === 'finish') why = whyOf(part.finishReason);
        if (part.type === 'usage') used = usedOf(part.usage);
        if (part.type === 'error') failed = true;
        if (part.type === 'error') return [record('trouble', { trouble: { code: part.error.code, message: part.error.message } })];
        if (part.type === 'end') return [record('end', { why, used })];
        return [];
      },
    };
  },
  decodeError(_status, body) {
    const trouble = (body as { trouble?: { code?: string; message?: string } } | undefined)?.trouble;
    return { message: trouble?.message ?? (typeof body === 'string' ? body : 'toy trouble'), code: trouble?.code };
  },
  decodeStreamError(r) {
    if (r.event !== 'trouble') return undefined;
    const trouble = (parse(r.data).trouble ?? {}) as { code?: string; message?: string };
    return { message: trouble.message ?? 'toy trouble', code: trouble.code };
  },
  encodeError(error, ids) {
    return { ...(buildErrorEnvelope(error, ids) as unknown as Json), trouble: { code: error.code, message: error.message } };
  },
  encodeStreamError(error) {
    return record('trouble', { trouble: { code: error.code, message: error.message } });
  },
  insertRoutingEvents(records, events) {
    if (records[0]?.event !== 'begin') return undefined;
    return [records[0], ...events.map((e) => record(`gateway.${e.name}`, e.details)), ...records.slice(1)];
  },
  readPassthroughResponse(body) {
    const b = body as Json;
    return { id: String(b.id), model: String(b.model), usage: usageOf(b.used), finishReason: String(b.why) };
  },
  createUsageTap() {
    const info: ReturnType<FormatCodec['readPassthroughResponse']> = {};
    return {
      push(r: WireRecord) {
        if (r.event === 'begin') Object.assign(info, { id: parse(r.data).id, model: parse(r.data).model });
        else if (r.event === 'end') info.usage = usageOf(parse(r.data).used);
      },
      info,
    };
  },
};
