/**
 * A fake upstream of every format at once (Chat and Responses under /v1, Messages at /v1/messages,
 * Gemini under /v1beta/models) for the structured-output tests: it answers with a JSON value built
 * from the schema the request carries in its format's own field (Chat `response_format`,
 * Responses `text.format`, Messages `output_config.format`, Gemini `responseJsonSchema` /
 * `responseSchema`), or with a call of the tool a `tool_choice` forces, its input built from
 * that tool's schema. It refuses schemas the real API refuses (OpenAI strict: every object closed
 * and every property required; Anthropic: every object closed) with the API's 400, and a prompt
 * holding REFUSE gets the format's refusal (Chat `message.refusal`, a Responses `refusal` part,
 * Anthropic `stop_reason: "refusal"`).
 */
import { startFakeUpstream, chatSse, namedSse, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';
import { chatReply, messagesReply, responsesReply, messagesStreamOf } from './strict-fake-replies.ts';

type Json = Record<string, any>;
type Format = 'chat' | 'responses' | 'messages' | 'gemini';

export const REFUSAL = "I'm sorry, I can't help with that.";

export interface StructuredFake extends FakeUpstream {
  /** The 400s this fake answered. */
  rejections: string[];
  /** Requests that asked for JSON without a schema in the format's own field (an instruction instead). */
  unschematic: string[];
}

/** A value matching `schema` (the first enum value, the first non-null type, one array item). */
export function valueOf(schema: Json | undefined, root: Json = schema ?? {}): unknown {
  if (!schema || typeof schema !== 'object') return 'text';
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce((node: Json | undefined, key: string) => node?.[key], root);
    return valueOf(target, root);
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return valueOf(union.find((s: Json) => s.type !== 'null') ?? union[0], root);
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).map((t: unknown) => String(t).toLowerCase());
  const type = types.find((t: string) => t !== 'null') ?? (schema.properties ? 'object' : 'string');
  if (type === 'object') return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([key, sub]) => [key, valueOf(sub as Json, root)]));
  if (type === 'array') return [valueOf(schema.items, root)];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return 'text';
}

/** Every object schema under `schema` (properties, items, unions, definitions). */
function objectsOf(schema: unknown, out: Json[] = []): Json[] {
  if (!schema || typeof schema !== 'object') return out;
  const node = schema as Json;
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || node.properties) out.push(node);
  for (const sub of Object.values(node.properties ?? {})) objectsOf(sub, out);
  for (const key of ['items', 'additionalProperties']) if (typeof node[key] === 'object') objectsOf(node[key], out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const sub of node[key] ?? []) objectsOf(sub, out);
  for (const key of ['$defs', 'definitions']) for (const sub of Object.values(node[key] ?? {})) objectsOf(sub, out);
  return out;
}

/** OpenAI's strict-mode schema check (its words). */
function checkOpenAIStrict(schema: Json, name: string, where: string): void {
  for (const object of objectsOf(schema)) {
    if (object.additionalProperties !== false) throw new Error(`Invalid schema for ${where} '${name}': In context=(), 'additionalProperties' is required to be supplied and to be false.`);
    const missing = Object.keys(object.properties ?? {}).find((key) => !(object.required ?? []).includes(key));
    if (missing) throw new Error(`Invalid schema for ${where} '${name}': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
  }
}

/** Anthropic's structured-output schema check (its words). */
function checkAnthropicSchema(schema: Json, at: string): void {
  for (const object of objectsOf(schema)) {
    if (object.additionalProperties !== false) throw new Error(`${at}: For 'object' type, 'additionalProperties' must be explicitly set to false`);
  }
}

function lastUserText(format: Format, body: Json): string {
  if (format === 'gemini') return JSON.stringify((body.contents ?? []).at(-1) ?? '');
  if (format === 'responses') return JSON.stringify(Array.isArray(body.input) ? body.input.at(-1) : body.input);
  return JSON.stringify((body.messages ?? []).at(-1) ?? '');
}

/** The JSON schema a request asks its answer to follow, in its format's own field. */
function schemaOf(format: Format, body: Json): Json | undefined {
  if (format === 'chat') return body.response_format?.type === 'json_schema' ? (body.response_format.json_schema?.schema ?? {}) : undefined;
  if (format === 'responses') return body.text?.format?.type === 'json_schema' ? (body.text.format.schema ?? {}) : undefined;
  if (format === 'messages') return body.output_config?.format?.type === 'json_schema' ? body.output_config.format.schema : undefined;
  const config = body.generationConfig ?? {};
  return config.responseMimeType === 'application/json' ? (config.responseJsonSchema ?? config.responseSchema) : undefined;
}

/** The tool a request forces and its input schema. */
function forcedToolOf(format: Format, body: Json): { name: string; schema: Json } | undefined {
  const choice = body.tool_choice;
  const tools: Json[] = body.tools ?? [];
  if (format === 'chat' && choice?.type === 'function') return { name: choice.function.name, schema: tools.find((t) => t.function?.name === choice.function.name)?.function.parameters };
  if (format === 'responses' && choice?.type === 'function') return { name: choice.name, schema: tools.find((t) => t.name === choice.name)?.parameters };
  if (format === 'messages' && choice?.type === 'tool') return { name: choice.name, schema: tools.find((t) => t.name === choice.name)?.input_schema };
  if (format === 'gemini') {
    const config = body.toolConfig?.functionCallingConfig;
    const declarations: Json[] = tools.flatMap((t) => t.functionDeclarations ?? []);
    const name = config?.mode === 'ANY' ? (config.allowedFunctionNames?.[0] ?? (declarations.length === 1 ? declarations[0].name : undefined)) : undefined;
    const declared = declarations.find((d) => d.name === name);
    return declared && { name: declared.name, schema: declared.parametersJsonSchema ?? declared.parameters };
  }
  return undefined;
}

function check(format: Format, body: Json): void {
  if (format === 'chat') {
    const spec = body.response_format?.json_schema;
    if (spec && !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name ?? '')) throw new Error(`Invalid 'response_format.json_schema.name': string does not match pattern.`);
    if (spec?.strict === true) checkOpenAIStrict(spec.schema ?? {}, spec.name, 'response_format');
    for (const tool of body.tools ?? []) if (tool.function?.strict === true) checkOpenAIStrict(tool.function.parameters ?? {}, tool.function.name, 'function');
  } else if (format === 'responses') {
    const spec = body.text?.format;
    if (spec?.type === 'json_schema' && !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name ?? '')) throw new Error(`Missing required parameter: 'text.format.name'.`);
    if (spec?.type === 'json_schema' && spec.strict === true) checkOpenAIStrict(spec.schema ?? {}, spec.name, 'response_format');
    for (const tool of body.tools ?? []) if (tool.type === 'function' && tool.strict === true) checkOpenAIStrict(tool.parameters ?? {}, tool.name, 'function');
  } else if (format === 'messages') {
    if (body.output_config?.format) checkAnthropicSchema(body.output_config.format.schema ?? {}, 'output_config.format.schema');
    for (const tool of body.tools ?? []) if (tool.strict === true) checkAnthropicSchema(tool.input_schema ?? {}, `tools.${tool.name}.input_schema`);
  }
}

function errorOf(format: Format, message: string): FakeReply {
  if (format === 'messages') return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message } } };
  if (format === 'gemini') return { status: 400, json: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
  return { status: 400, json: { error: { message, type: 'invalid_request_error', param: null, code: null } } };
}

function chatRefusal(body: Json): FakeReply {
  const base = { id: 'chatcmpl-refusal', created: 1_700_000_000, model: body.model };
  const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };
  if (!body.stream) return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: REFUSAL }, finish_reason: 'stop', logprobs: null }], usage } };
  const chunk = (delta: Json, finish: string | null = null) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
  const chunks: Json[] = [chunk({ role: 'assistant', content: null, refusal: '' }), chunk({ refusal: REFUSAL.slice(0, 10) }), chunk({ refusal: REFUSAL.slice(10) }), chunk({}, 'stop')];
  if (body.stream_options?.include_usage) chunks.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  return { sse: chatSse(chunks) };
}

function responsesRefusal(body: Json): FakeReply {
  const message = { id: 'msg_refusal', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: REFUSAL }] };
  const response = { id: 'resp_refusal', object: 'response', created_at: 1_700_000_000, status: 'completed', model: body.model, output: [message], usage: { input_tokens: 50, output_tokens: 10, total_tokens: 60, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } }, error: null, incomplete_details: null, text: body.text, tools: [], parallel_tool_calls: true, tool_choice: 'auto' };
  if (!body.stream) return { json: response };
  let seq = 0;
  const at = { item_id: message.id, output_index: 0, content_index: 0 };
  const events = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null } },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...at, part: { type: 'refusal', refusal: '' } },
    { type: 'response.refusal.delta', ...at, delta: REFUSAL },
    { type: 'response.refusal.done', ...at, refusal: REFUSAL },
    { type: 'response.content_part.done', ...at, part: message.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response },
  ].map((event) => ({ ...event, sequence_number: seq++ }));
  return { sse: namedSse(events) };
}

function messagesRefusal(body: Json): FakeReply {
  const message = { id: 'msg_refusal', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: REFUSAL }], stop_reason: 'refusal', stop_sequence: null, stop_details: { type: 'refusal', category: 'cyber', explanation: null }, usage: { input_tokens: 50, output_tokens: 10 } };
  if (!body.stream) return { json: message };
  // The API writes stop_details in message_delta too.
  const stream = messagesStreamOf(message) as { sse: string[] };
  return { sse: stream.sse.map((frame) => frame.replace('"stop_details":null', `"stop_details":${JSON.stringify(message.stop_details)}`)) };
}

function geminiReply(body: Json, sse: boolean, model: string, parts: Json[]): FakeReply {
  const usageMetadata = { promptTokenCount: 50, candidatesTokenCount: 10, totalTokenCount: 60 };
  const whole = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model, responseId: 'gem-1' };
  if (!sse) return { json: whole };
  const text = parts[0]?.text;
  if (typeof text !== 'string') return { sse: [`data: ${JSON.stringify(whole)}\r\n\r\n`] };
  const half = Math.ceil(text.length / 2);
  const first = { candidates: [{ content: { role: 'model', parts: [{ text: text.slice(0, half) }] }, index: 0 }], modelVersion: model, responseId: 'gem-1' };
  const last = { candidates: [{ content: { role: 'model', parts: [{ text: text.slice(half) }] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model, responseId: 'gem-1' };
  return { sse: [first, last].map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`) };
}

const GEMINI_PATH = /^\/v1beta\/models\/([^/:?]+):(generateContent|streamGenerateContent)/;

export async function startStructuredFake(): Promise<StructuredFake> {
  const rejections: string[] = [];
  const unschematic: string[] = [];
  const handle = (request: ReceivedRequest): FakeReply => {
    const body = (request.json ?? {}) as Json;
    const gemini = GEMINI_PATH.exec(request.path);
    const format: Format | undefined = gemini ? 'gemini' : request.path === '/v1/chat/completions' ? 'chat' : request.path === '/v1/responses' ? 'responses' : request.path === '/v1/messages' ? 'messages' : undefined;
    if (!format) return { status: 404, json: { error: { message: `no route ${request.path}` } } };
    try {
      check(format, body);
    } catch (error) {
      rejections.push((error as Error).message);
      return errorOf(format, (error as Error).message);
    }
    const model = gemini ? decodeURIComponent(gemini[1]) : body.model;
    const refuse = lastUserText(format, body).includes('REFUSE');
    const forced = forcedToolOf(format, body);
    const schema = schemaOf(format, body);
    if (!forced && !schema) unschematic.push(`${format}: ${JSON.stringify(body).slice(0, 300)}`);
    if (refuse && format === 'chat') return chatRefusal(body);
    if (refuse && format === 'responses') return responsesRefusal(body);
    if (refuse && format === 'messages') return messagesRefusal(body);
    const tool = forced && { name: forced.name, input: valueOf(forced.schema) as Record<string, unknown> };
    const text = JSON.stringify(valueOf(schema ?? { type: 'object', properties: { answer: { type: 'string' } } }));
    if (format === 'gemini') return geminiReply(body, gemini![2] === 'streamGenerateContent', model, tool ? [{ functionCall: { name: tool.name, args: tool.input } }] : [{ text }]);
    const turn = { model, reasoning: false, tool, text, cachedTokens: 0 };
    if (format === 'chat') return chatReply(turn, body);
    if (format === 'messages') return messagesReply(turn, body);
    return responsesReply(turn, body).reply;
  };
  const base = await startFakeUpstream(handle);
  return Object.assign(base, { rejections, unschematic });
}
