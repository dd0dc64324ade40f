/**
 * The official SDKs' own tool loops through the gateway, against the strict Chat, Responses,
 * Messages and Gemini fakes: openai `chat.completions.runTools` (whole and streamed, a zodFunction
 * tool run by the SDK) and `@anthropic-ai/sdk` `beta.messages.toolRunner` with a `betaZodTool`
 * (whole and streamed). Each calls the tool twice, then answers.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFourUpstreams, type FourUpstreams } from '../helpers/four-upstreams.ts';
import type { ToolPick } from '../helpers/strict-fakes.ts';

const FINAL = 'Done: the file is written.';
const pick = (names: string[]): ToolPick | undefined => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);
const MODELS = ['oc/gpt-4.1', 'or/gpt-4.1', 'ant/claude-up', 'google/gemini-2.5-flash'];

describe("the SDKs' tool runners through the gateway", () => {
  let up: FourUpstreams;
  let openai: OpenAI;
  let anthropic: Anthropic;
  const ran: string[] = [];

  beforeAll(async () => {
    up = await startFourUpstreams({ pick, toolTurns: 2, reasoningOpenAI: false });
    openai = new OpenAI({ baseURL: `${up.gateway.url}/v1`, apiKey: up.gateway.key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: up.gateway.url, apiKey: up.gateway.key, maxRetries: 0 });
  }, 120_000);
  afterAll(async () => {
    await up?.close();
  });
  const rejections = () => up.rejections();
  beforeEach(() => {
    up.reset();
    ran.length = 0;
  });

  const fakeOf = (model: string) => [up.chat, up.responses, up.messages, up.gemini][MODELS.indexOf(model)]!;
  const lookup = async ({ city }: { city: string }) => {
    ran.push(city);
    return `18°C in ${city}`;
  };

  describe.each(MODELS)('%s', (model) => {
    it.each([false, true])('openai chat.completions.runTools (stream: %s)', async (stream) => {
      const tools = [zodFunction({ name: 'lookup', description: 'Weather of a city', parameters: z.object({ city: z.string() }), function: lookup })];
      const messagesIn = [{ role: 'user' as const, content: 'Weather in Paris, twice?' }];
      const runner = stream ? openai.chat.completions.runTools({ model, messages: messagesIn, tools, stream: true }) : openai.chat.completions.runTools({ model, messages: messagesIn, tools });
      expect(await runner.finalContent()).toBe(FINAL);
      expect(rejections()).toEqual([]);
      expect(ran).toEqual(['Paris', 'Paris']);
      // A stream without stream_options.include_usage carries none, as at OpenAI.
      if (!stream) expect((await runner.totalUsage()).prompt_tokens).toBeGreaterThan(0);
    });

    it.each([false, true])('anthropic beta.messages.toolRunner with a betaZodTool (stream: %s)', async (stream) => {
      const tool = betaZodTool({ name: 'lookup', description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), run: lookup });
      // The runner threads its turns (beta message-threads-2026-08-12: each continue sends only the new messages, without
      // system and tools). A converted route refuses the thread as Anthropic refuses a request it cannot thread; the
      // Messages fake holds no threads and says so, and the gateway hands its error's details back. Either way the
      // runner goes on unthreaded, with the whole history.
      const params = { model, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: 'Weather in Paris, twice?' }], tools: [tool] };
      const runner = stream ? anthropic.beta.messages.toolRunner({ ...params, stream: true }) : anthropic.beta.messages.toolRunner(params);
      const final = await runner.runUntilDone();
      expect(rejections()).toEqual([]);
      expect(ran).toEqual(['Paris', 'Paris']);
      expect(final.stop_reason).toBe('end_turn');
      // The first turn asked for a thread and was refused with Anthropic's thread_unsupported_request; every later turn went whole.
      const bodies = (fakeOf(model).requests as Array<{ json?: Record<string, unknown> }>).map((r) => JSON.stringify(r.json));
      expect(bodies.at(-1)).toContain('Weather in Paris, twice?');
      if (model === 'ant/claude-up') expect(bodies.filter((body) => body.includes('"thread"'))).toHaveLength(1);
      expect(final.content.filter((block) => block.type === 'text').map((block) => (block as { text: string }).text).join('')).toBe(FINAL);
    });
  });
});
