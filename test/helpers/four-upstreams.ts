/**
 * The gateway in front of one strict fake of each upstream format (test/helpers/strict-fakes.ts,
 * fake-gemini.ts), for client tests that run every route: `oc/<m>` Chat, `or/<m>` Responses,
 * `ant/claude-up` Messages (thinking), `google/gemini-2.5-flash` Gemini (thinking; with `gemini3`,
 * `google/gemini-3-pro-preview` and Gemini 3's signature rules). The OpenAI models are reasoning
 * ones (`o4-mini`, `gpt-5`) or not (`gpt-4.1` on both).
 */
import { startGeminiFake, type GeminiFake } from './fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from './spawn-gateway.ts';
import { startStrictFake, type StrictFake, type ToolPick } from './strict-fakes.ts';

export interface FourUpstreams {
  chat: StrictFake;
  responses: StrictFake;
  messages: StrictFake;
  gemini: GeminiFake;
  gateway: SpawnedGateway;
  /** The gateway ids of the four routes, Chat, Responses, Messages, Gemini. */
  models: string[];
  /** Every fake's 400s since the last reset. */
  rejections(): string[];
  /** Forgets the fakes' requests and rejections. */
  reset(): void;
  close(): Promise<void>;
}

export async function startFourUpstreams(options: { pick: (names: string[]) => ToolPick | undefined; toolTurns: number; reasoningOpenAI: boolean; gemini3?: boolean }): Promise<FourUpstreams> {
  const { pick, toolTurns } = options;
  const [chatModel, responsesModel] = options.reasoningOpenAI ? ['o4-mini', 'gpt-5'] : ['gpt-4.1', 'gpt-4.1'];
  const openAI = { maxOutput: 100000, reasoning: options.reasoningOpenAI };
  const chat = await startStrictFake({ format: 'chat', models: { [chatModel]: openAI }, pick, toolTurns });
  const responses = await startStrictFake({ format: 'responses', models: { [responsesModel]: openAI }, pick, toolTurns });
  const messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick, toolTurns });
  const geminiModel = options.gemini3 ? 'gemini-3-pro-preview' : 'gemini-2.5-flash';
  const gemini = await startGeminiFake({ models: { [geminiModel]: { thinking: true, gemini3: options.gemini3 === true } }, pick: (names) => { const call = pick(names); return call && [{ name: call.name, args: call.input }]; }, toolTurns });
  const gateway = await spawnGateway({
    config: {
      providers: {
        oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: [chatModel] },
        or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: [responsesModel] },
        ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        google: { plugin: 'google', apiKey: 'goog', baseURL: gemini.url, models: [geminiModel] },
      },
    },
  });
  const fakes = [chat, responses, messages, gemini];
  return {
    chat,
    responses,
    messages,
    gemini,
    gateway,
    models: [`oc/${chatModel}`, `or/${responsesModel}`, 'ant/claude-up', `google/${geminiModel}`],
    rejections: () => fakes.flatMap((fake) => fake.rejections),
    reset: () => {
      for (const fake of fakes) {
        fake.rejections.length = 0;
        fake.requests.length = 0;
      }
    },
    close: async () => {
      await gateway.stop();
      for (const fake of fakes) await fake.close();
    },
  };
}
