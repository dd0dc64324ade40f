import { createHash } from 'node:crypto';
import type { ModelSpec, ModerationCall, ModerationResult } from 'gateway/plugin-kit';

/** The mock's moderation model, under OpenAI's default id so `moderations.create` without a model finds it. */
export const MODERATION_MODELS: ModelSpec[] = [
  { id: 'omni-moderation-latest', type: 'moderation', capabilities: [], pricing: { input: 0 }, displayName: 'Mock Moderation', modalities: { input: ['text', 'image'], output: ['text'] } },
];

/** omni-moderation's categories and the input kinds each is judged on (OpenAI's moderation guide). */
const CATEGORIES: Array<[name: string, kinds: Array<'text' | 'image'>]> = [
  ['harassment', ['text']],
  ['harassment/threatening', ['text']],
  ['hate', ['text']],
  ['hate/threatening', ['text']],
  ['illicit', ['text']],
  ['illicit/violent', ['text']],
  ['self-harm', ['text', 'image']],
  ['self-harm/intent', ['text', 'image']],
  ['self-harm/instructions', ['text', 'image']],
  ['sexual', ['text', 'image']],
  ['sexual/minors', ['text']],
  ['violence', ['text', 'image']],
  ['violence/graphic', ['text', 'image']],
];

/** One result: nothing flagged, small scores drawn from the input (the same input, the same scores). */
function resultOf(seed: string, kinds: Set<'text' | 'image'>) {
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  const applied: Record<string, string[]> = {};
  for (const [name, judged] of CATEGORIES) {
    categories[name] = false;
    scores[name] = createHash('sha256').update(`${name}\u0000${seed}`).digest().readUInt32BE(0) / 0xffffffff / 1000;
    applied[name] = judged.filter((kind) => kinds.has(kind));
  }
  return { flagged: false, categories, category_scores: scores, category_applied_input_types: applied };
}

/** OpenAI's moderation answer: one result per text of a string list, one for a string or a list of parts. */
export async function mockModerations(call: ModerationCall): Promise<ModerationResult> {
  const { input } = call;
  const results =
    typeof input === 'string'
      ? [resultOf(input, new Set(['text']))]
      : input.every((item) => typeof item === 'string')
        ? (input as string[]).map((text) => resultOf(text, new Set(['text'])))
        : [resultOf(JSON.stringify(input), new Set((input as Array<Record<string, unknown>>).map((part) => (part.type === 'image_url' ? 'image' : 'text'))))];
  const id = `modr-${createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 24)}`;
  return { body: { id, model: call.model, results } };
}
