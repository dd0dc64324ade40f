import type { ChatRequest } from '../../ir/index.ts';
import { withField } from '../../util/index.ts';
import type { InboundBody, RequestFacts, VendorTools } from '../types.ts';
import { FieldChecker, badRequest, budgetOfEffort, capFields, isRecord, measureInput, setOutputCap, type CappedBody, type InputShape } from '../shared/index.ts';
import { protoName as spelling } from './proto-json.ts';

/**
 * Gemini's parts say what they are by their member: `inlineData` / `fileData` are media. A call
 * without an `id` gets one made up in the IR (`gwcall_` + 16), which the IR's bound counts.
 */
const GEMINI_INPUT: InputShape = {
  // Proto JSON takes snake_case too (Google's REST docs write `inline_data`): Google bills it as media either way.
  isMedia: (object) => isRecord(object.inlineData) || isRecord(object.fileData) || isRecord(object.inline_data) || isRecord(object.file_data),
  jsonKeys: new Set(['args', 'response', 'parametersJsonSchema', 'responseJsonSchema', 'responseSchema', 'parameters_json_schema', 'response_json_schema', 'response_schema']),
  allowance: (object) => (isRecord(object.functionCall) && object.functionCall.id === undefined ? 32 : 0),
};

/**
 * What billing and routing read of a Gemini `generateContent` request — all a passthrough reads
 * (the rest is Google's to judge): the model and stream flag from the path, the output cap
 * `generationConfig.maxOutputTokens`, the input bound, and `googleSearch` (a web search only
 * formats that run one can serve). Gemini has no session key of its own.
 */
export function readGeminiRequest({ body, target }: InboundBody): RequestFacts {
  if (!target) throw badRequest('The Gemini format reads the model from the path (/v1beta/models/{model}:generateContent).');
  const check = new FieldChecker();
  if (!Array.isArray(body.contents)) check.fail('contents', 'must be an array');
  const generationKey = spelling(body, 'generationConfig', 'generation_config');
  const generation = check.record(body[generationKey], generationKey);
  const capKey = generation && spelling(generation, 'maxOutputTokens', 'max_output_tokens');
  const maxTokens = generation && check.number(generation[capKey!], `${generationKey}.${capKey}`, { min: 0, integer: true });
  check.throwIfAny();
  // The response schema is framed like a tool (the IR's bound adds a tool's framing): read inside an object of its own.
  const schema = generation && {
    responseSchema: generation[spelling(generation, 'responseSchema', 'response_schema')],
    responseJsonSchema: generation[spelling(generation, 'responseJsonSchema', 'response_json_schema')],
  };
  const input = measureInput([body[spelling(body, 'systemInstruction', 'system_instruction')], body.contents, body.tools, schema], GEMINI_INPUT);
  const facts: RequestFacts = { model: target.model, stream: target.stream, inputBound: input.bound, inputEstimate: input.estimate };
  // With thinking asked over a smaller cap, a converted request may be answered its budget on top (setOutputCap).
  if (maxTokens !== undefined) setOutputCap(facts, maxTokens, thinkingBudgets(generation && generation[spelling(generation, 'thinkingConfig', 'thinking_config')]));
  // googleSearch is Gemini's own: a Gemini upstream runs it, and so does any format that runs a hosted web search.
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && tool[spelling(tool, 'googleSearch', 'google_search')] !== undefined)) {
    facts.vendorTools = googleSearch();
  }
  if (generation && asksForImages(generation[spelling(generation, 'responseModalities', 'response_modalities')])) facts.imageOutput = true;
  return facts;
}

/**
 * The body with `generationConfig.maxOutputTokens` lowered to the model's maximum (Google
 * would refuse a cap above it), in a copy; undefined when it is not over. `thinkingConfig` stays
 * as the client wrote it (only Anthropic's budget must be below the cap).
 */
export function capGeminiOutput(body: Record<string, unknown>, max: number): CappedBody | undefined {
  const key = spelling(body, 'generationConfig', 'generation_config');
  const generation = body[key];
  if (!isRecord(generation)) return undefined;
  const cap = spelling(generation, 'maxOutputTokens', 'max_output_tokens');
  const capped = capFields(generation, [cap], max);
  if (!capped) return undefined;
  return { body: withField(body, key, capped.body), adapted: [`${key}.${cap}=${max}`] };
}

/** Gemini's web search tool as a vendor tool of the `gemini` format (formats with a hosted web search run it too). */
function googleSearch(): VendorTools {
  return { format: 'gemini', types: ['googleSearch'], webSearch: ['googleSearch'] };
}

/** The vendor tools of a decoded Gemini request: its `googleSearch` (the IR's web search). */
export function geminiVendorTools(request: ChatRequest): VendorTools | undefined {
  return request.webSearch ? googleSearch() : undefined;
}

/** `responseModalities` asking for images that the decoder takes as output modalities (TEXT and IMAGE only, any case). */
function asksForImages(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  const modalities = value.map((m) => (typeof m === 'string' ? m.toLowerCase() : ''));
  return modalities.includes('image') && modalities.every((m) => m === 'text' || m === 'image');
}

/** The thinking budget a Gemini thinkingConfig may mean, as the decoder reads it (a budget, -1, a level, includeThoughts); none for a budget of 0. */
function thinkingBudgets(config: unknown): Array<number | undefined> {
  if (!isRecord(config)) return [];
  const budget = config[spelling(config, 'thinkingBudget', 'thinking_budget')];
  const level = config[spelling(config, 'thinkingLevel', 'thinking_level')];
  if (budget === 0) return [];
  if (typeof budget === 'number' && budget > 0) return [budget];
  if (typeof level === 'string' && level.toLowerCase() !== 'thinking_level_unspecified') return [budgetOfEffort(level.toLowerCase())];
  if (budget === -1 || config[spelling(config, 'includeThoughts', 'include_thoughts')] === true) return [budgetOfEffort('medium')];
  return [];
}
