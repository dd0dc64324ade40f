/**
 * The gateway in front of the strict fakes an agent test asks for (test/helpers/strict-fakes.ts,
 * fake-gemini.ts), under the provider ids those tests use: `oc/<model>` Chat, `or/<model>`
 * Responses, `ant/claude-up` Messages (a thinking model), `gg/<model>` Gemini (`gemini.provider`
 * names another id); with `failing`, upstreams whose streams fail mid-answer (failing-streams.ts)
 * as `fc/flaky`, `fr/flaky`, `fm/flaky` and `fg/gemini-2.5-flash`. One tool script for every fake:
 * the Gemini fake gets the same calls as Gemini's.
 */
import { startGeminiFake, type GeminiFake, type GeminiFakeOptions, type GeminiModel } from './fake-gemini.ts';
import type { FakeUpstream } from './fake-upstream.ts';
import { startFailingChat, startFailingGemini, startFailingMessages, startFailingResponses, type FailingGeminiOptions } from './failing-streams.ts';
import { spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { startStrictFake, type StrictFake, type StrictFakeOptions, type StrictModel } from './strict-fakes.ts';

type Json = Record<string, any>;

/** What the strict fakes share: the tool calls of a turn, how many results before the final text, that text, a prompt cache. */
type Script = Pick<StrictFakeOptions, 'pick' | 'toolTurns' | 'finalText' | 'cacheKey'>;

export interface StrictUpstreamsOptions extends Script {
  /** `oc/<model>`: a strict Chat fake serving these models. */
  chat?: Record<string, StrictModel>;
  /** `or/<model>`: a strict Responses fake serving these models. */
  responses?: Record<string, StrictModel>;
  /** `ant/claude-up`: a strict Messages fake of a thinking model; `vision` says the gateway's model takes images. */
  messages?: { vision?: boolean };
  /**
   * `gg/<model>` (or `provider`): the Gemini fake serving these models. Its `toolTurns` counts rounds,
   * where the strict fakes count results (default the shared `toolTurns`); its final text is the shared one.
   */
  gemini?: { models: Record<string, GeminiModel>; provider?: string; toolTurns?: number } & Pick<GeminiFakeOptions, 'cachedTokens'>;
  /** Upstreams whose streams fail mid-answer, by format (`fc`, `fr`, `fm`, `fg`); `whole` also fails a request without `stream` with a 500 (503 on Gemini). */
  failing?: { chat?: boolean; responses?: boolean; messages?: boolean; gemini?: FailingGeminiOptions; whole?: boolean };
}

export interface StrictUpstreams {
  gateway: SpawnedGateway;
  chat?: StrictFake;
  responses?: StrictFake;
  messages?: StrictFake;
  gemini?: GeminiFake;
  failing: { chat?: FakeUpstream; responses?: FakeUpstream; messages?: FakeUpstream; gemini?: FakeUpstream };
  /** Stops the gateway, then every fake. */
  close(): Promise<void>;
}

/** Starts the fakes `options` names and a gateway with one provider for each. */
export async function startStrictUpstreams(options: StrictUpstreamsOptions): Promise<StrictUpstreams> {
  const script: Script = { pick: options.pick, toolTurns: options.toolTurns, finalText: options.finalText, cacheKey: options.cacheKey };
  const strict = (format: 'chat' | 'responses' | 'messages', models: Record<string, StrictModel>) => startStrictFake({ format, models, ...script });
  const up: StrictUpstreams = { gateway: undefined as unknown as SpawnedGateway, failing: {}, close: async () => undefined };
  const providers: Json = {};
  if (options.chat) {
    up.chat = await strict('chat', options.chat);
    providers.oc = { plugin: 'openai', baseURL: `${up.chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: Object.keys(options.chat) };
  }
  if (options.responses) {
    up.responses = await strict('responses', options.responses);
    providers.or = { plugin: 'openai', baseURL: `${up.responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: Object.keys(options.responses) };
  }
  if (options.messages) {
    up.messages = await strict('messages', { 'claude-up': { maxOutput: 64000, reasoning: true } });
    const capabilities = ['streaming', 'function_calling', 'thinking', ...(options.messages.vision ? ['vision'] : [])];
    providers.ant = { plugin: 'anthropic', baseURL: up.messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities }] };
  }
  if (options.gemini) {
    const { models, provider = 'gg', toolTurns = options.toolTurns, cachedTokens } = options.gemini;
    const pick = options.pick;
    up.gemini = await startGeminiFake({
      apiKey: 'goog', models, toolTurns, cachedTokens, finalText: options.finalText,
      pick: pick && ((names, body) => {
        const calls = pick(names, body);
        return calls && [calls].flat().map((call) => ({ name: call.name, args: call.input }));
      }),
    });
    providers[provider] = { plugin: 'google', apiKey: 'goog', baseURL: up.gemini.url, models: Object.keys(models) };
  }
  const failing = options.failing ?? {};
  const whole = failing.whole === true;
  if (failing.chat) {
    up.failing.chat = await startFailingChat({ whole });
    providers.fc = { plugin: 'openai', baseURL: `${up.failing.chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['flaky'] };
  }
  if (failing.responses) {
    up.failing.responses = await startFailingResponses({ whole });
    providers.fr = { plugin: 'openai', baseURL: `${up.failing.responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['flaky'] };
  }
  if (failing.messages) {
    up.failing.messages = await startFailingMessages();
    providers.fm = { plugin: 'anthropic', baseURL: up.failing.messages.url, apiKey: 'x', models: ['flaky'] };
  }
  if (failing.gemini) {
    up.failing.gemini = await startFailingGemini({ ...failing.gemini, whole });
    providers.fg = { plugin: 'google', baseURL: up.failing.gemini.url, apiKey: 'x', models: ['gemini-2.5-flash'] };
  }
  const fakes = [up.chat, up.responses, up.messages, up.gemini, ...Object.values(up.failing)];
  up.close = async () => {
    await up.gateway?.stop();
    for (const fake of fakes) await fake?.close();
  };
  try {
    up.gateway = await spawnGateway({ config: { providers } });
  } catch (error) {
    await up.close();
    throw error;
  }
  return up;
}
