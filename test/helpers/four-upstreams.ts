/**
 * The gateway in front of one strict fake of each upstream format (test/helpers/strict-fakes.ts,
 * fake-gemini.ts), for client tests that run every route: `oc/<m>` Chat, `or/<m>` Responses,
 * `ant/claude-up` Messages (thinking), `google/gemini-2.5-flash` Gemini (thinking; with `gemini3`,
 * `google/gemini-3-pro-preview` and Gemini 3's signature rules). The OpenAI models are reasoning
 * ones (`o4-mini`, `gpt-5`) or not (`gpt-4.1` on both).
 */
import type { GeminiFake } from './fake-gemini.ts';
import type { SpawnedGateway } from './spawn-gateway.ts';
import type { StrictFake, ToolPick } from './strict-fakes.ts';
import { startStrictUpstreams } from './strict-upstreams.ts';

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
  const geminiModel = options.gemini3 ? 'gemini-3-pro-preview' : 'gemini-2.5-flash';
  const up = await startStrictUpstreams({
    pick,
    toolTurns,
    chat: { [chatModel]: openAI },
    responses: { [responsesModel]: openAI },
    messages: {},
    gemini: { models: { [geminiModel]: { thinking: true, gemini3: options.gemini3 === true } }, provider: 'google', toolTurns },
  });
  const [chat, responses, messages, gemini] = [up.chat!, up.responses!, up.messages!, up.gemini!];
  const fakes = [chat, responses, messages, gemini];
  return {
    chat,
    responses,
    messages,
    gemini,
    gateway: up.gateway,
    models: [`oc/${chatModel}`, `or/${responsesModel}`, 'ant/claude-up', `google/${geminiModel}`],
    rejections: () => fakes.flatMap((fake) => fake.rejections),
    reset: () => {
      for (const fake of fakes) {
        fake.rejections.length = 0;
        fake.requests.length = 0;
      }
    },
    close: up.close,
  };
}
