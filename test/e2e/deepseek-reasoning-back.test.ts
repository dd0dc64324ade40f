/**
 * DeepSeek's thinking mode (deepseek-reasoner, deepseek-v4-*) answers a tool call with its
 * reasoning in `reasoning_content` and refuses the next request of the tool loop unless every
 * assistant turn with tool calls carries that `reasoning_content` back (400 "Missing
 * `reasoning_content` field in the assistant message at message index N"). A Chat client sends it
 * itself (passthrough); a client of another format (Claude Code's Anthropic SDK, Codex's
 * Responses) gets the reasoning in its own shape, and the gateway dropped it on the way back, so
 * every converted tool loop on DeepSeek ended on that 400. Now the model's own plain reasoning is
 * marked with the model and goes back to it; another Chat model (OpenAI's) still never gets it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeReply, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const MODEL = 'deepseek-v4-pro';
const THOUGHT = 'The user wants the weather; call lookup.';

/** DeepSeek in thinking mode: turn 1 a tool call with reasoning, then the final text; a tool loop without the reasoning back is a 400. */
function deepseek(body: Json): FakeReply {
  const messages: Json[] = body.messages ?? [];
  const missing = messages.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && typeof m.reasoning_content !== 'string');
  if (missing >= 0) {
    return { status: 400, json: { error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${missing}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } };
  }
  const answered = messages.some((m) => m.role === 'tool');
  const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60, completion_tokens_details: { reasoning_tokens: 5 } };
  const head = { id: `ds-${messages.length}`, created: 1_800_000_000, model: MODEL };
  const call = { id: 'call_00_lookup', type: 'function', function: { name: 'lookup', arguments: '{"city":"Paris"}' } };
  const message: Json = answered ? { role: 'assistant', content: 'It is 18°C in Paris.', reasoning_content: 'Now answer.' } : { role: 'assistant', content: '', reasoning_content: THOUGHT, tool_calls: [call] };
  const finish = answered ? 'stop' : 'tool_calls';
  if (!body.stream) return { json: { ...head, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage } };
  const chunk = (delta: Json, finishReason: string | null = null) => ({ ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  const chunks: Json[] = [chunk({ role: 'assistant', content: null, reasoning_content: message.reasoning_content })];
  if (answered) chunks.push(chunk({ content: message.content }));
  else chunks.push(chunk({ tool_calls: [{ index: 0, ...call }] }));
  chunks.push(chunk({}, finish), { ...head, object: 'chat.completion.chunk', choices: [], usage });
  return { sse: chatSse(chunks) };
}

describe('DeepSeek thinking mode: its reasoning goes back to it in a converted tool loop', () => {
  let upstream: FakeUpstream;
  let openaiChat: StrictFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => deepseek(request.json as Json));
    openaiChat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, finalText: 'ok' });
    gw = await spawnGateway({
      config: {
        providers: {
          ds: { plugin: 'openai', baseURL: upstream.url, apiKey: 'sk-ds', formats: ['chat'], models: [MODEL] },
          oc: { plugin: 'openai', baseURL: `${openaiChat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
        },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
    await openaiChat?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    openaiChat.requests.length = 0;
  });

  const lastAssistant = () => ((upstream.requests.at(-1)!.json as Json).messages as Json[]).find((m) => m.role === 'assistant')!;
  const tool: Anthropic.Tool = { name: 'lookup', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

  it.each([false, true])('an Anthropic SDK client (Claude Code): the thinking it got goes back as reasoning_content (stream: %s)', async (stream) => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const ask = async (messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> =>
      stream ? client.messages.stream({ model: `ds/${MODEL}`, max_tokens: 1000, tools: [tool], messages }).finalMessage() : client.messages.create({ model: `ds/${MODEL}`, max_tokens: 1000, tools: [tool], messages });
    const first = await ask([question]);
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    const use = first.content.find((b) => b.type === 'tool_use')!;
    const done = await ask([question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C' }] }]);
    expect(done.content.filter((b) => b.type === 'text').map((b) => (b as Anthropic.TextBlock).text)).toEqual(['It is 18°C in Paris.']);
    expect(lastAssistant().reasoning_content).toBe(THOUGHT);
  });

  it.each([false, true])('an openai SDK Responses client (Codex): the reasoning item it got goes back as reasoning_content (stream: %s)', async (stream) => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'lookup', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
    const ask = async (input: OpenAI.Responses.ResponseInputItem[]): Promise<OpenAI.Responses.Response> => {
      if (!stream) return client.responses.create({ model: `ds/${MODEL}`, input, tools, store: false, include: ['reasoning.encrypted_content'] });
      return client.responses.stream({ model: `ds/${MODEL}`, input, tools, store: false, include: ['reasoning.encrypted_content'] }).finalResponse();
    };
    const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Paris?' };
    const first = await ask([question]);
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const done = await ask([question, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18°C' }]);
    const text = done.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => (part.type === 'output_text' ? part.text : ''));
    expect(text).toEqual(['It is 18°C in Paris.']);
    expect(lastAssistant().reasoning_content).toBe(THOUGHT);
  });

  it('switching the same history to an OpenAI Chat model: the DeepSeek reasoning stays out', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Paris?' };
    const first = await client.messages.create({ model: `ds/${MODEL}`, max_tokens: 1000, tools: [tool], messages: [question] });
    const use = first.content.find((b) => b.type === 'tool_use')!;
    await client.messages.create({ model: 'oc/gpt-4o-mini', max_tokens: 1000, tools: [tool], messages: [question, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C' }] }] });
    expect(openaiChat.rejections).toEqual([]);
    const assistant = ((openaiChat.requests.at(-1)!.json as Json).messages as Json[]).find((m) => m.role === 'assistant')!;
    expect(assistant.reasoning_content).toBeUndefined();
    expect(assistant.tool_calls).toHaveLength(1);
  });
});
