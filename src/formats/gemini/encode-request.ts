import { validationError } from '../../errors/index.ts';
import type { ChatRequest, ContentPart, Message, ReasoningPart, ToolChoice } from '../../ir/index.ts';
import { effortToBudgetTokens, fitEffort, isRecord, tryParseJson } from '../shared/index.ts';
import type { EncodeRequestOptions } from '../types.ts';
import { SKIP_SIGNATURE, isMadeUpId, signatureOf } from './signature.ts';

type Json = Record<string, unknown>;
type Content = { role: 'user' | 'model'; parts: Json[] };

/** IR → a `generateContent` body for a Gemini upstream (the model goes in the URL, not the body). */
export function encodeGeminiRequest(request: ChatRequest, options: EncodeRequestOptions): Json {
  // The IR answer is the first candidate: `candidateCount` > 1 would bill candidates the client never sees.
  if (request.n !== undefined && request.n > 1) throw validationError({ n: 'must be 1: the gateway reads a single candidate from the upstream (Gemini)' });
  const body: Json = {};
  const names = callNames(request.messages);
  const media = isGemini3(options.baseModel ?? options.upstreamModel);
  const contents: Content[] = [];
  const systemTexts = request.system.map((part) => ({ text: part.text }));
  for (const message of request.messages) {
    if (message.role === 'system' || message.role === 'developer') {
      for (const part of message.content) if (part.type === 'text') systemTexts.push({ text: part.text });
      continue;
    }
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = message.content.flatMap((part, i) => encodePart(part, message, i, names, media));
    if (parts.length === 0) continue;
    const last = contents.at(-1);
    // One turn per role: a model's parallel calls' results go together in one user turn.
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  signFirstCalls(contents);
  body.contents = contents;
  if (systemTexts.length > 0) body.systemInstruction = { parts: systemTexts };
  const tools: Json[] = [];
  if (request.tools && request.tools.length > 0) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => {
        const declaration: Json = { name: tool.name };
        if (tool.description) declaration.description = tool.description;
        if (tool.parameters) declaration.parametersJsonSchema = tool.parameters;
        return declaration;
      }),
    });
  }
  if (request.webSearch) tools.push({ googleSearch: {} });
  if (tools.length > 0) body.tools = tools;
  if (request.toolChoice && request.tools?.length) body.toolConfig = { functionCallingConfig: toolChoiceConfig(request.toolChoice) };
  const generation = generationConfig(request, options);
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  // Fields only a Gemini client sends (safetySettings, cachedContent, …): back as they came.
  if (request.extra) for (const [key, value] of Object.entries(request.extra)) if (!(key in body)) body[key] = value;
  return body;
}

/** Tool call id → name, so a result (which has only the id in the IR) gets its function's name. */
function callNames(messages: Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) for (const part of message.content) if (part.type === 'tool_call') names.set(part.id, part.name);
  return names;
}

function withSignature(part: Json, source: ContentPart): Json {
  const signature = signatureOf(source);
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

function encodePart(part: ContentPart, message: Message, index: number, names: Map<string, string>, media: boolean): Json[] {
  switch (part.type) {
    case 'text':
      return part.text === '' && signatureOf(part) === undefined ? [] : [withSignature({ text: part.text }, part)];
    case 'refusal':
      return [{ text: part.refusal }];
    case 'reasoning':
      return encodeReasoning(part);
    case 'image':
    case 'file': {
      const source = part.source;
      // An image the model made goes back with its thought signature (Gemini 3's image models sign theirs).
      if (source.kind === 'base64' || source.kind === 'text') return [withSignature({ inlineData: { mimeType: source.mediaType, data: source.kind === 'text' ? Buffer.from(source.data).toString('base64') : source.data } }, part)];
      if (source.kind === 'url') {
        const data = /^data:([^;,]+);base64,(.*)$/s.exec(source.url);
        if (data) return [withSignature({ inlineData: { mimeType: data[1], data: data[2] } }, part)];
        return [{ fileData: { mimeType: part.type === 'image' ? mimeOfUrl(source.url, 'image/jpeg') : mimeOfUrl(source.url, 'application/pdf'), fileUri: source.url } }];
      }
      throw validationError({ [`messages[${index}].file_id`]: 'a file id cannot go to a Gemini upstream' }, `A file uploaded by id cannot go to a Gemini upstream; send its data instead.`);
    }
    case 'audio':
      return [{ inlineData: { mimeType: `audio/${part.format}`, data: part.data } }];
    case 'tool_call': {
      const call: Json = { name: part.name, args: argsOf(part.arguments) };
      if (!isMadeUpId(part.id)) call.id = part.id;
      return [withSignature({ functionCall: call }, part)];
    }
    case 'tool_result': {
      const response: Json = { name: names.get(part.toolCallId) ?? 'tool', response: resultOf(part.content, part.isError === true) };
      if (!isMadeUpId(part.toolCallId)) response.id = part.toolCallId;
      // An image or document the tool gave (Claude Code's Read of a screenshot or a PDF) goes with it, as gemini-cli sends its own:
      // inline data inside the response on Gemini 3 (multimodal function responses), else beside it in the same turn.
      const attached = typeof part.content === 'string' ? [] : part.content.flatMap((inner, i) => (inner.type === 'text' ? [] : encodePart(inner, message, i, names, media)));
      const inside = media ? attached.filter((p) => p.inlineData !== undefined) : [];
      if (inside.length > 0) response.parts = inside;
      return [{ functionResponse: response }, ...attached.filter((p) => !inside.includes(p))];
    }
    default:
      void message;
      return [];
  }
}

/** Gemini 3: thinking levels instead of budgets, and an image or PDF inside a `functionResponse` (`parts`; older models take it only beside one, gemini-cli's rule). */
function isGemini3(model: string): boolean {
  return /gemini-3/.test(model);
}

/** Gemini's own thoughts go back with their signature; another vendor's reasoning cannot be verified by Gemini and stays out. */
function encodeReasoning(part: ReasoningPart): Json[] {
  const signature = signatureOf(part);
  if (signature === undefined || part.redacted) return [];
  return [{ text: part.text, thought: true, thoughtSignature: signature }];
}

/**
 * Gemini 3 answers 400 when the first `functionCall` of a model turn has no signature: a call
 * whose signature is genuinely unavailable (another model's turn, a client that dropped it)
 * gets Google's documented skip value instead (docs/formats.md).
 */
function signFirstCalls(contents: Content[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const first = content.parts.find((part) => part.functionCall !== undefined);
    if (first && first.thoughtSignature === undefined) first.thoughtSignature = SKIP_SIGNATURE;
  }
}

function mimeOfUrl(url: string, fallback: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  const known: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', pdf: 'application/pdf', txt: 'text/plain' };
  return (ext && known[ext]) || fallback;
}

function argsOf(text: string): Json {
  const parsed = tryParseJson(text);
  return isRecord(parsed) ? parsed : {};
}

/**
 * A result's content → `functionResponse.response` (an object): a JSON object as it is, anything else as `{result}`;
 * a failed call's (`is_error`) as `{error}`, the key Google names for error details (gemini-cli sends its tools' errors so).
 */
function resultOf(content: ContentPart[] | string | Array<{ type: string }>, failed: boolean): Json {
  const text = typeof content === 'string' ? content : (content as ContentPart[]).map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (failed) return { error: text };
  const parsed = tryParseJson(text);
  return isRecord(parsed) ? parsed : { result: text };
}

function toolChoiceConfig(choice: ToolChoice): Json {
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  if (choice === 'auto') return { mode: 'AUTO' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

function generationConfig(request: ChatRequest, options: EncodeRequestOptions): Json {
  const config: Json = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.stop?.length) config.stopSequences = request.stop;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;
  if (request.logprobs) {
    config.responseLogprobs = true;
    // Chat's top_logprobs (0–20) is Gemini's logprobs (0–20); 0 asks for none, as leaving it out does.
    if (request.topLogprobs !== undefined && request.topLogprobs > 0) config.logprobs = Math.min(20, request.topLogprobs);
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.schema) config.responseJsonSchema = format.schema;
  }
  const thinking = thinkingConfig(request, options.baseModel ?? options.upstreamModel);
  if (thinking) config.thinkingConfig = thinking;
  // An image model answers with images when asked (Chat's `modalities`): Google's names, upper case.
  if (request.outputModalities?.includes('image')) config.responseModalities = request.outputModalities.map((m) => m.toUpperCase());
  return config;
}

/**
 * Reasoning → `thinkingConfig`: a budget as `thinkingBudget`; an effort as `thinkingLevel` on
 * Gemini 3 (which rejects budgets of 0 and has levels) and as the effort's budget on older
 * models (which reject levels). Thoughts are asked for whenever reasoning is on, so a client of
 * another format sees them as it would its own.
 */
function thinkingConfig(request: ChatRequest, model: string): Json | undefined {
  const reasoning = request.reasoning;
  if (!reasoning) return undefined;
  const levels = isGemini3(model) ? thinkingLevels(model) : undefined;
  // Off: the least the model does (Gemini 3 and 2.5 Pro cannot switch thinking off).
  if (!reasoning.enabled || reasoning.effort === 'none') return levels ? { thinkingLevel: levels[0] } : { thinkingBudget: /gemini-2\.5-pro/.test(model) ? 128 : 0 };
  const config: Json = { includeThoughts: true };
  if (reasoning.budgetTokens !== undefined) config.thinkingBudget = reasoning.budgetTokens;
  else if (reasoning.effort !== undefined) {
    if (levels) config.thinkingLevel = fitEffort(levels, reasoning.effort);
    else config.thinkingBudget = effortToBudgetTokens(reasoning.effort) ?? -1;
  }
  return config;
}

/**
 * The thinking levels a Gemini 3 model takes, weakest first (Google's thinking guide, November
 * 2026): Flash minimal–high, 3 Pro low and high, later Pro models low–high. An effort the model
 * lacks asks for the next stronger level it has (the strongest above it).
 */
function thinkingLevels(model: string): readonly string[] {
  if (/gemini-3(?:\.\d+)?-flash/.test(model)) return ['minimal', 'low', 'medium', 'high'];
  if (/gemini-3-pro/.test(model)) return ['low', 'high'];
  return ['low', 'medium', 'high'];
}
