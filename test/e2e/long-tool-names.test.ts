/**
 * Tool names another upstream refuses (Claude Code's MCP tools, `mcp__<server>__<tool>`, up to
 * Anthropic's 128 characters; OpenAI Chat and Responses and Gemini take 64): an Anthropic SDK
 * client offers one to a converted upstream. The strict fakes refuse what the real APIs refuse;
 * the gateway sends a shortened name (the same one for the tool, the call in the history and
 * the tool_choice) and the client only ever sees its own name, whole and streamed, over a
 * two-turn tool loop.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const LONG = 'mcp__claude-in-chrome-extension-server__browser_take_screenshot_of_the_current_tab_and_return_it';
const OTHER = 'mcp__claude-in-chrome-extension-server__browser_take_screenshot_of_the_current_tab_and_return_it_as_png';
const SHORT_OK = 'Write';
const schema = { type: 'object' as const, properties: { tab: { type: 'string' } } };

describe('tool names over the upstream limit', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  // Turn 1 calls the first offered tool (the long one): as the upstream named it.
  const pick = (names: string[]) => (names.length > 0 ? { name: names[0], input: { tab: 'current' } } : undefined);

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false } }, pick });
    gemini = await startGeminiFake({ models: { 'gemini-2.5-flash': { thinking: false, gemini3: false } }, pick: (names) => (names.length > 0 ? [{ name: names[0], args: { tab: 'current' } }] : undefined) });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: ['gemini-2.5-flash'] },
        },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, gemini]) await fake?.close();
  });

  /** The tool names the upstream was offered, and the names of the calls in its history. */
  function namesSent(model: string, body: Json): { offered: string[]; history: string[]; choice?: string } {
    if (model.startsWith('oc/')) {
      return {
        offered: body.tools.map((t: Json) => t.function.name),
        history: body.messages.flatMap((m: Json) => (m.tool_calls ?? []).map((c: Json) => c.function.name)),
        choice: body.tool_choice?.function?.name,
      };
    }
    if (model.startsWith('or/')) {
      return {
        offered: body.tools.map((t: Json) => t.name),
        history: body.input.filter((i: Json) => i.type === 'function_call').map((i: Json) => i.name),
        choice: body.tool_choice?.name,
      };
    }
    const parts = body.contents.flatMap((c: Json) => c.parts);
    return {
      offered: body.tools[0].functionDeclarations.map((d: Json) => d.name),
      history: parts.filter((p: Json) => p.functionCall).map((p: Json) => p.functionCall.name).concat(parts.filter((p: Json) => p.functionResponse).map((p: Json) => p.functionResponse.name)),
      choice: body.toolConfig?.functionCallingConfig?.allowedFunctionNames?.[0],
    };
  }

  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['or/gpt-4.1', () => responses],
    ['google/gemini-2.5-flash', () => gemini],
  ])('%s: the upstream gets names it takes, the client its own (whole and streamed)', async (model, fakeOf) => {
    const fake = fakeOf();
    for (const stream of [false, true]) {
      fake.requests.length = 0;
      const tools: Anthropic.Tool[] = [LONG, OTHER, SHORT_OK].map((name) => ({ name, description: `the tool ${name}`, input_schema: schema }));
      const question: Anthropic.MessageParam = { role: 'user', content: 'Take a screenshot.' };
      const ask = { model, max_tokens: 500, tools, tool_choice: { type: 'tool' as const, name: LONG } };
      const first = stream ? await anthropic.messages.stream({ ...ask, messages: [question] }).finalMessage() : await anthropic.messages.create({ ...ask, messages: [question] });
      expect(fake.rejections).toEqual([]);
      const use = first.content.find((block) => block.type === 'tool_use');
      expect(use).toMatchObject({ type: 'tool_use', name: LONG });

      const followUp: Anthropic.MessageParam[] = [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: 'screenshot taken' }] },
      ];
      const second = stream
        ? await anthropic.messages.stream({ model, max_tokens: 500, tools, messages: followUp }).finalMessage()
        : await anthropic.messages.create({ model, max_tokens: 500, tools, messages: followUp });
      expect(fake.rejections).toEqual([]);
      expect(second.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('')).toBe('Done: the file is written.');

      const [one, two] = fake.requests.map((r) => namesSent(model, r.json!));
      // Shortened, within the limit, distinct, deterministic; a name that fits is kept.
      expect(one.offered).toHaveLength(3);
      for (const name of one.offered) expect(name.length).toBeLessThanOrEqual(64);
      expect(new Set(one.offered).size).toBe(3);
      expect(one.offered[2]).toBe(SHORT_OK);
      expect(one.offered[0].startsWith('mcp__claude-in-chrome')).toBe(true);
      expect(one.choice).toBe(one.offered[0]);
      expect(two.offered).toEqual(one.offered);
      // The call in the history goes back under the name the upstream gave it.
      expect(new Set(two.history)).toEqual(new Set([one.offered[0]]));
    }
  });
});
