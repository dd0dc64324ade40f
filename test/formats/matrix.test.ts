/**
 * The conversion matrix: every (client format × upstream format) pair × every feature is one
 * named test. Each test builds the client's request in the client format, decodes it and
 * encodes it for the upstream (asserting what the upstream would receive), then takes a
 * recorded-shape upstream answer (test/fixtures/matrix/<upstream>/…), decodes it and encodes
 * it for the client (asserting what the client gets). Streams go through SseParser in split
 * frames. Where a turn must survive a round trip (tool ids, signatures), the client's own
 * echo of the answer is sent back and the second upstream body is checked too.
 * No sockets: the SDK-level and HTTP-level checks are in test/e2e/formats-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { getCodec } from '../../src/formats/registry.ts';
import { encodeChatRequest } from '../../src/formats/chat/index.ts';
import type { ChatRequest } from '../../src/ir/types.ts';
import { SKIP_SIGNATURE } from '../../src/formats/gemini/index.ts';
import { buildClientRequest, geminiBody, geminiTarget, nextTurn, type Conversation, type MatrixFormat } from './matrix/client-requests.ts';
import { readClientJson, readClientStream, type ClientView } from './matrix/read-client.ts';
import { readUpstream, type UpstreamView } from './matrix/read-upstream.ts';

type WireFormat = MatrixFormat;
import { readFixture, readJsonFixture, translateStream } from './stream-helpers.ts';

type Json = Record<string, any>;
type Scenario = 'text' | 'tools' | 'parallel-tools' | 'reasoning';

const FORMATS: WireFormat[] = ['chat', 'messages', 'responses', 'gemini'];
const PAIRS = FORMATS.flatMap((client) => FORMATS.map((upstream) => ({ client, upstream })));
const SPLITS = [1, 5, 64];
const UPSTREAM_MODEL = 'up-model';
const DEFAULT_MAX_TOKENS = 4096;

/** What the upstream fixtures say, per upstream format (ids and opaque reasoning are the upstream's own). */
const UPSTREAM = {
  chat: { tool: 'call_W1aa', parallel: ['call_P1aa', 'call_P2bb', 'call_P3cc'], opaque: 'ErUBCkYIBRgCIkDsigMatrixOR==' },
  messages: { tool: 'toolu_01W1', parallel: ['toolu_01P1', 'toolu_01P2', 'toolu_01P3'], opaque: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBMatrix+/Q==' },
  responses: { tool: 'call_W1', parallel: ['call_P1', 'call_P2', 'call_P3'], opaque: 'gAAAAABmxMatrix-encrypted_opaque==' },
  // Gemini sends calls without ids (`-` in the upstream view) and signs the (first) call, and a
  // thinking answer's last text part: `opaque` is that text signature, which only Gemini clients hold.
  gemini: { tool: '-', parallel: ['-', '-', '-'], opaque: 'CiQB0e2Kb+MatrixTextSig/C==' },
} as const;

/** Gemini 3's signatures in the fixtures: on the one call of `tools`, on the first of three in `parallel-tools` (wire-formats-providers §1.10). */
const GEMINI_SIG = { tools: 'CiQB0e2Kb+MatrixToolSig/A==', parallel: 'CiQB0e2Kb+MatrixParSig/B==' } as const;

/** Tool call ids as each client writes them in its history. */
const CLIENT_CALL_ID = { chat: 'call_C1', messages: 'toolu_C1', responses: 'call_C1', gemini: 'call_C1' } as const;
/** Gemini's `responseId` is whatever the upstream's id was. */
const ID_PREFIX = { chat: 'chatcmpl-', messages: 'msg_', responses: 'resp_', gemini: '' } as const;

/**
 * How each client carries reasoning it cannot hold natively: Responses clients get foreign
 * signatures in encrypted_content, Messages clients get OpenAI encrypted reasoning
 * in the signature (both `gwpm:`, src/formats/shared/carry-opaque.ts). Chat clients carry both natively in reasoning_details.
 */
function expectedOpaque(client: WireFormat, upstream: WireFormat): string | RegExp | undefined {
  const native = UPSTREAM[upstream].opaque;
  // Gemini signs the answer's text, not its thoughts: no client holds an opaque on the reasoning.
  if (upstream === 'gemini') return undefined;
  if (client === 'gemini') return /^gwpm:/;
  if (client === 'responses' && upstream !== 'responses') return /^gwpm:/;
  if (client === 'messages' && upstream === 'responses') return /^gwpm:/;
  return native;
}

const EXPECTED_USAGE: Record<WireFormat, Json> = {
  chat: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, prompt_tokens_details: { cached_tokens: 40, cache_write_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 20 } },
  messages: { input_tokens: 50, output_tokens: 50, cache_creation_input_tokens: 10, cache_read_input_tokens: 40, output_tokens_details: { thinking_tokens: 20 } },
  responses: { input_tokens: 100, input_tokens_details: { cached_tokens: 40, cache_write_tokens: 10 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 20 }, total_tokens: 150 },
  // Gemini has no cache writes: candidates + thoughts = output (wire-formats §4.7).
  gemini: { promptTokenCount: 100, candidatesTokenCount: 30, thoughtsTokenCount: 20, cachedContentTokenCount: 40, totalTokenCount: 150 },
};

/** The same usage from a Gemini upstream, which reports no cache writes (the Gemini fixtures' 100 in, 40 cached, 30 + 20 out). */
function expectedUsage(client: WireFormat, upstream: WireFormat): Json {
  if (upstream !== 'gemini' || client === 'gemini') return EXPECTED_USAGE[client];
  if (client === 'messages') return { ...EXPECTED_USAGE.messages, input_tokens: 60, cache_creation_input_tokens: 0 };
  const key = client === 'chat' ? 'prompt_tokens_details' : 'input_tokens_details';
  return { ...EXPECTED_USAGE[client], [key]: { cached_tokens: 40 } };
}

/** A Gemini upstream's line for a signed part ends ` sig=…`; the skip value signs an unsigned first call of a turn. */
function sig(upstream: WireFormat, signature: string): string {
  return upstream === 'gemini' ? ` sig=${signature}` : '';
}

/**
 * A tool result as a non-Gemini upstream gets it from a Gemini client: Gemini's
 * `functionResponse.response` is an object, which goes on as its JSON.
 */
function resultText(client: WireFormat, upstream: WireFormat, text: string): string {
  return client === 'gemini' && upstream !== 'gemini' ? JSON.stringify({ result: text }) : text;
}

/** The gateway's decode of a client body (a Gemini client's model and stream flag come from its URL). */
function decodeClient(client: WireFormat, body: Json): ChatRequest {
  if (client === 'gemini') return getCodec('gemini').decodeRequest(geminiBody(structuredClone(body)), geminiTarget(body));
  return getCodec(client).decodeRequest(structuredClone(body));
}

const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const TIME = { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } };
const LOCATION = { name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } };

/** The pipeline's conversion step: client body → IR → upstream body (format-only extras dropped across formats). */
function toUpstream(client: WireFormat, upstream: WireFormat, body: Json): { request: ChatRequest; body: Json; sent: UpstreamView } {
  const request = decodeClient(client, body);
  const portable = client === upstream ? request : { ...request, extra: undefined };
  const sentBody = getCodec(upstream).encodeRequest(portable, { upstreamModel: UPSTREAM_MODEL, defaultMaxTokens: DEFAULT_MAX_TOKENS }) as Json;
  return { request, body: sentBody, sent: readUpstream(upstream, sentBody, request.stream) };
}

function answerJson(client: WireFormat, upstream: WireFormat, scenario: Scenario, request: ChatRequest): ClientView {
  const response = getCodec(upstream).decodeResponse(readJsonFixture(`matrix/${upstream}/${scenario}.json`));
  return readClientJson(client, getCodec(client).encodeResponse(response, request));
}

function answerStream(client: WireFormat, upstream: WireFormat, scenario: Scenario, request: ChatRequest, split: number): ClientView {
  const sse = translateStream(getCodec(upstream), getCodec(client), request, readFixture(`matrix/${upstream}/${scenario}.sse.txt`), split);
  return readClientStream(client, sse);
}

/** Both answers (JSON, and the stream at every split), for assertions that hold for each. */
function answers(client: WireFormat, upstream: WireFormat, scenario: Scenario, conversation: Conversation): Array<[string, ClientView, Json]> {
  const json = buildClientRequest(client, conversation);
  const streamed = buildClientRequest(client, { ...conversation, stream: true, includeUsage: true });
  const jsonRequest = decodeClient(client, json);
  const streamRequest = decodeClient(client, streamed);
  return [
    ['json', answerJson(client, upstream, scenario, jsonRequest), json],
    ...SPLITS.map((split): [string, ClientView, Json] => [`stream/${split}`, answerStream(client, upstream, scenario, streamRequest, split), streamed]),
  ];
}

for (const { client, upstream } of PAIRS) describe(`${client} client → ${upstream} upstream`, () => {
  const upstreamView = (body: Json) => toUpstream(client, upstream, body).sent;
  const eitherGemini = client === 'gemini' || upstream === 'gemini';

  it('text', () => {
    const conversation: Conversation = {
      system: 'You are terse.',
      turns: [{ role: 'user', parts: [{ text: 'Hi there' }] }, { role: 'assistant', text: 'Hello!' }, { role: 'user', parts: [{ text: 'Say hi' }] }],
    };
    const { body, sent } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    // Gemini names the model in the URL, never the body.
    if (upstream === 'gemini') expect(body).not.toHaveProperty('model');
    else expect(body.model).toBe(UPSTREAM_MODEL);
    expect(sent.lines).toEqual(['system You are terse.', 'user text Hi there', 'assistant text Hello!', 'user text Say hi']);
    expect(sent.stream).toBe(false);
    // Messages requires max_tokens: the client's own, else the gateway default (pitfall 1).
    if (upstream === 'messages') expect(body.max_tokens).toBe(client === 'messages' ? 1024 : DEFAULT_MAX_TOKENS);

    const view = answerJson(client, upstream, 'text', decodeClient(client, buildClientRequest(client, conversation)));
    expect(view).toMatchObject({ text: 'Héllo wörld 👋!', finish: 'stop', toolCalls: [], reasoning: [] });
    expect(view.id.startsWith(ID_PREFIX[client])).toBe(true);
  });

  it('stream', () => {
    const conversation: Conversation = { turns: [{ role: 'user', parts: [{ text: 'Say hi' }] }], stream: true, includeUsage: true };
    const { request, body, sent } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    expect(sent.stream).toBe(true);
    if (upstream === 'chat') expect(body.stream_options).toEqual({ include_usage: true });

    for (const split of SPLITS) {
      const view = answerStream(client, upstream, 'text', request, split);
      expect(view, `split every ${split} bytes`).toMatchObject({ text: 'Héllo wörld 👋!', finish: 'stop', toolCalls: [] });
      expect(view.id.startsWith(ID_PREFIX[client])).toBe(true);
    }
  });

  it('tools', () => {
    const id = CLIENT_CALL_ID[client];
    const conversation: Conversation = {
      turns: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'assistant', text: 'Let me check.', calls: [{ id, name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'tool', results: [{ id, text: '18°C' }] },
        { role: 'user', parts: [{ text: 'And tomorrow?' }] },
      ],
      tools: [WEATHER],
      toolChoice: { name: 'get_weather' },
    };
    const { body, sent } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    expect(sent.tools).toEqual([{ name: 'get_weather', description: 'Current weather', parameters: WEATHER.parameters }]);
    expect(sent.toolChoice).toEqual({ name: 'get_weather' });
    expect(sent.lines).toEqual([
      'user text Weather in Paris?',
      'assistant text Let me check.',
      `assistant call ${id} get_weather {"city":"Paris"}${sig(upstream, SKIP_SIGNATURE)}`,
      `tool result ${id} ${resultText(client, upstream, '18°C')}`,
      'user text And tomorrow?',
    ]);
    expectResultRightAfterCall(upstream, body);

    const wire = UPSTREAM[upstream].tool;
    for (const [label, view, sentBody] of answers(client, upstream, 'tools', { turns: [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }], tools: [WEATHER] })) {
      const up = upstream === 'gemini' ? view.toolCalls[0]?.id : wire;
      // A Gemini call has no id: the client gets one made up, which holds the call's signature where the client has no field for it.
      if (upstream === 'gemini') expect(up, label).toMatch(client === 'gemini' ? /^gwcall_/ : /^gwpm_/);
      expect(view, label).toMatchObject({ text: 'Let me check.', finish: 'tool_calls', toolCalls: [{ id: up, name: 'get_weather', args: { city: 'Paris' } }] });
      // Second turn: the client answers the call by the id it got; the upstream sees its own id (and signature) back.
      const second = toUpstream(client, upstream, nextTurn(client, sentBody, view.echo, { results: [{ id: up, text: '18°C' }] })).sent;
      const result = upstream === 'gemini' ? '@get_weather' : wire;
      expect(second.lines.slice(-3), label).toEqual(['assistant text Let me check.', `assistant call ${wire} get_weather {"city":"Paris"}${sig(upstream, GEMINI_SIG.tools)}`, `tool result ${result} ${resultText(client, upstream, '18°C')}`]);
    }
  });

  it('parallel tools', () => {
    const conversation: Conversation = {
      turns: [
        { role: 'user', parts: [{ text: 'Weather in Paris and the time?' }] },
        { role: 'assistant', calls: [{ id: 'call_A', name: 'get_weather', args: { city: 'Paris' } }, { id: 'call_B', name: 'get_time', args: { tz: 'CET' } }] },
        { role: 'tool', results: [{ id: 'call_A', text: '18°C' }, { id: 'call_B', text: '14:05' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      tools: [WEATHER, TIME, LOCATION],
      toolChoice: 'auto',
      parallel: false,
    };
    const { body, sent } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    // Gemini has no switch for parallel calls: a Gemini client cannot ask, a Gemini upstream cannot be told.
    expect(sent.parallel).toBe(eitherGemini ? undefined : false);
    expect(sent.toolChoice).toBe('auto');
    expect(sent.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time', 'get_location']);
    expect(sent.lines).toEqual([
      'user text Weather in Paris and the time?',
      `assistant call call_A get_weather {"city":"Paris"}${sig(upstream, SKIP_SIGNATURE)}`,
      'assistant call call_B get_time {"tz":"CET"}',
      `tool result call_A ${resultText(client, upstream, '18°C')}`,
      `tool result call_B ${resultText(client, upstream, '14:05')}`,
      'user text Thanks',
    ]);
    expectResultRightAfterCall(upstream, body);

    const wire = UPSTREAM[upstream].parallel;
    for (const [label, view, sentBody] of answers(client, upstream, 'parallel-tools', { turns: [{ role: 'user', parts: [{ text: 'All three?' }] }], tools: [WEATHER, TIME, LOCATION] })) {
      const ids = upstream === 'gemini' ? view.toolCalls.map((call) => call.id) : wire;
      // Only the first of Gemini's parallel calls is signed: only its made-up id carries metadata.
      if (upstream === 'gemini') expect(ids, label).toEqual([expect.stringMatching(client === 'gemini' ? /^gwcall_/ : /^gwpm_/), expect.stringMatching(/^gwcall_/), expect.stringMatching(/^gwcall_/)]);
      expect(view.finish, label).toBe('tool_calls');
      expect(view.toolCalls, label).toEqual([
        { id: ids[0], name: 'get_weather', args: { city: 'Paris' } },
        { id: ids[1], name: 'get_time', args: { tz: 'CET' } },
        { id: ids[2], name: 'get_location', args: {} },
      ]);
      const results = ids.map((id, i) => ({ id, text: `r${i}` }));
      const second = toUpstream(client, upstream, nextTurn(client, sentBody, view.echo, { results })).sent;
      const resultIds = upstream === 'gemini' ? ['@get_weather', '@get_time', '@get_location'] : wire;
      expect(second.lines.slice(-6), label).toEqual([
        `assistant call ${wire[0]} get_weather {"city":"Paris"}${sig(upstream, GEMINI_SIG.parallel)}`,
        `assistant call ${wire[1]} get_time {"tz":"CET"}`,
        `assistant call ${wire[2]} get_location {}`,
        ...results.map((r, i) => `tool result ${resultIds[i]} ${resultText(client, upstream, r.text)}`),
      ]);
    }
  });

  it('reasoning with signatures', () => {
    const conversation: Conversation = { turns: [{ role: 'user', parts: [{ text: 'Which is smaller, 9.11 or 9.9?' }] }], reasoning: 'high' };
    const { body } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    if (upstream === 'chat') expect(body.reasoning_effort).toBe('high');
    if (upstream === 'responses') expect(body.reasoning).toMatchObject({ effort: 'high' });
    if (upstream === 'messages') {
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
      expect(body.max_tokens).toBeGreaterThan(4096);
    }
    if (upstream === 'gemini') expect(body.generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });

    const opaque = expectedOpaque(client, upstream);
    for (const [label, view, sentBody] of answers(client, upstream, 'reasoning', conversation)) {
      expect(view, label).toMatchObject({ text: '9.11 is smaller.', finish: 'stop' });
      expect(view.reasoning, label).toEqual([{ text: 'Compare the numbers.', ...(opaque === undefined ? {} : { opaque: expect.stringMatching(typeof opaque === 'string' ? `^${escape(opaque)}$` : opaque) }) }]);
      // The client sends the turn back as it got it: the upstream that made the reasoning gets it byte-exact.
      const next = nextTurn(client, sentBody, view.echo, { text: 'Why?' });
      const { request, body: second, sent } = toUpstream(client, upstream, next);
      const lines = sent.lines;
      if (upstream === 'gemini') {
        // Gemini's unsigned thoughts stay out; the signed text goes back byte-exact from a Gemini client (no other format has an opaque on text).
        expect(lines, label).toEqual(['user text Which is smaller, 9.11 or 9.9?', `assistant text 9.11 is smaller.${client === 'gemini' ? sig(upstream, UPSTREAM.gemini.opaque) : ''}`, 'user text Why?']);
      } else if (upstream === 'chat') {
        // OpenAI Chat takes no reasoning input: dropped by default, sent back only on request.
        expect(lines.some((line) => line.startsWith('assistant reasoning')), label).toBe(false);
        const resent = readUpstream('chat', encodeChatRequest(request, { upstreamModel: UPSTREAM_MODEL, assistantReasoning: 'send' })).lines;
        expect(resent, label).toContain(`assistant reasoning Compare the numbers. opaque=${UPSTREAM.chat.opaque}`);
      } else {
        expect(lines, label).toEqual(['user text Which is smaller, 9.11 or 9.9?', `assistant reasoning Compare the numbers. opaque=${UPSTREAM[upstream].opaque}`, 'assistant text 9.11 is smaller.', 'user text Why?']);
      }
      if (upstream === 'responses') expect((second.input as Json[]).find((item) => item.type === 'reasoning')?.id, label).toBe('rs_68b0mx04a');
    }
  });

  it('image', () => {
    const conversation: Conversation = {
      turns: [{ role: 'user', parts: [{ text: 'What is in these?' }, { image: 'data:image/png;base64,iVBORw0KGgo=' }, { image: 'https://example.com/cat.jpg' }] }],
    };
    expect(upstreamView(buildClientRequest(client, conversation)).lines).toEqual([
      'user text What is in these?',
      'user image data:image/png;base64,iVBORw0KGgo=',
      'user image https://example.com/cat.jpg',
    ]);
    expect(answerJson(client, upstream, 'text', decodeClient(client, buildClientRequest(client, conversation))).text).toBe('Héllo wörld 👋!');
  });

  it('document', () => {
    const conversation: Conversation = {
      turns: [
        {
          role: 'user',
          parts: [{ text: 'Summarise these.' }, { file: { data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'report.pdf' } }, { file: { url: 'https://example.com/spec.pdf' } }],
        },
      ],
    };
    const { body, sent } = toUpstream(client, upstream, buildClientRequest(client, conversation));
    // Gemini media has no filename; OpenAI needs one with file data, so Chat and Responses upstreams get a made-up one.
    const filename = !eitherGemini ? ' report.pdf' : client === 'gemini' && (upstream === 'chat' || upstream === 'responses') ? ' document.pdf' : '';
    expect(sent.lines).toEqual([
      'user text Summarise these.',
      `user file data:application/pdf;base64,JVBERi0xLjQ=${filename}`,
      'user file https://example.com/spec.pdf',
    ]);
    // A Chat upstream gets URL documents as `file.file_url` (the gateway's extension, spec §1).
    if (upstream === 'chat') expect(JSON.stringify(body.messages)).toContain('"file_url":"https://example.com/spec.pdf"');
    expect(answerJson(client, upstream, 'text', decodeClient(client, buildClientRequest(client, conversation))).text).toBe('Héllo wörld 👋!');
  });

  it('usage', () => {
    // A Chat upstream streams usage only when asked: the gateway always asks (pitfall 9).
    const streamed = toUpstream(client, upstream, buildClientRequest(client, { turns: [{ role: 'user', parts: [{ text: 'hi' }] }], stream: true })).body;
    if (upstream === 'chat') expect(streamed.stream_options).toEqual({ include_usage: true });
    else expect(streamed.stream_options).toBeUndefined();

    for (const [label, view] of answers(client, upstream, 'text', { turns: [{ role: 'user', parts: [{ text: 'hi' }] }] })) {
      expect(view.usage, label).toEqual(expectedUsage(client, upstream));
    }
    if (client === 'chat') {
      // Without include_usage a Chat client gets no usage chunk, as from OpenAI.
      const request = getCodec('chat').decodeRequest(buildClientRequest('chat', { turns: [{ role: 'user', parts: [{ text: 'hi' }] }], stream: true }));
      expect(answerStream('chat', upstream, 'text', request, 7).usage).toBeUndefined();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Pitfall 3/4/10: results sit right after their calls, in the place the upstream format demands. */
function expectResultRightAfterCall(upstream: WireFormat, body: Json): void {
  if (upstream === 'chat') {
    const messages = body.messages as Json[];
    const at = messages.findIndex((m) => m.tool_calls);
    const calls = messages[at].tool_calls.length;
    expect(messages.slice(at + 1, at + 1 + calls).map((m) => m.role)).toEqual(Array(calls).fill('tool'));
  } else if (upstream === 'messages') {
    const messages = body.messages as Json[];
    const at = messages.findIndex((m) => m.role === 'assistant' && m.content.some((b: Json) => b.type === 'tool_use'));
    const uses = messages[at].content.filter((b: Json) => b.type === 'tool_use').length;
    const next = messages[at + 1];
    expect(next.role).toBe('user');
    expect(next.content.slice(0, uses).map((b: Json) => b.type)).toEqual(Array(uses).fill('tool_result'));
    expect(next.content.slice(uses).every((b: Json) => b.type !== 'tool_result')).toBe(true);
  } else if (upstream === 'gemini') {
    const contents = body.contents as Json[];
    const at = contents.findIndex((c) => c.role === 'model' && c.parts.some((p: Json) => p.functionCall));
    const calls = contents[at].parts.filter((p: Json) => p.functionCall).length;
    const next = contents[at + 1];
    expect(next.role).toBe('user');
    expect(next.parts.slice(0, calls).every((p: Json) => p.functionResponse)).toBe(true);
    expect(next.parts.slice(calls).every((p: Json) => !p.functionResponse)).toBe(true);
  } else {
    const input = body.input as Json[];
    const calls = input.filter((i) => i.type === 'function_call');
    const outputs = input.filter((i) => i.type === 'function_call_output');
    expect(outputs.map((o) => o.call_id)).toEqual(calls.map((c) => c.call_id));
    for (const call of calls) expect(call.id === undefined || /^fc_/.test(call.id)).toBe(true);
    expect(input.indexOf(outputs[0])).toBeGreaterThan(input.indexOf(calls.at(-1)!));
  }
}
