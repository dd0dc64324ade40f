/**
 * A strict fake of Google's Gemini API (AI Studio, and the Gemini half of the Vertex fake): it
 * rejects what the real one rejects — unknown fields (proto JSON: camelCase or snake_case), both
 * thinking knobs at once, a Gemini 3 `functionCall` of the current turn without its
 * `thoughtSignature` (unless it carries the documented skip value), a signature it never issued,
 * function responses that do not answer every call, a function name over 64 characters or outside
 * `[a-zA-Z0-9_.:-]` — with 400 INVALID_ARGUMENT in Google's error
 * shape. The script is an agent loop: tool calls (parallel when `pick` returns several) until
 * `toolTurns` rounds are answered, then a final text; the first call of each round and the last
 * part of a text answer carry a fresh signature. With `searchQueries`, a text answer to a request
 * with the Google Search tool is grounded: its last record carries `groundingMetadata`.
 */
import crypto from 'node:crypto';
import { startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';

type Json = Record<string, any>;

export interface GeminiModel {
  /** Thinks (thought parts with includeThoughts, thoughtsTokenCount). */
  thinking: boolean;
  /** Gemini 3 rules: every call round signed, signatures of the current turn validated. */
  gemini3: boolean;
  outputTokenLimit?: number;
  /**
   * An image model (gemini-2.5-flash-image, gemini-3-pro-image-preview): a text answer also
   * carries an image (`inlineData`, after a draft image marked `thought` when it thinks) unless
   * `responseModalities` leaves IMAGE out; another model refuses IMAGE there, as Google does.
   */
  image?: boolean;
  /** An embedding model (`gemini-embedding-001`): `:batchEmbedContents` only. */
  embedding?: boolean;
  /**
   * Answers `responseLogprobs` with each candidate's `logprobsResult` (a token per answer chunk,
   * `logprobs` alternatives each); a model without it refuses the ask, as Google's do: 400
   * INVALID_ARGUMENT "Logprobs is not enabled for models/<id>".
   */
  logprobs?: boolean;
}

/** The PNG an image model of the fake makes (a real 1×1 image). */
export const FAKE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

export interface GeminiCall {
  name: string;
  args: Record<string, unknown>;
}

export interface GeminiFakeOptions {
  models: Record<string, GeminiModel>;
  /** AI Studio: the `x-goog-api-key` (or `?key=`) required; unset for the Vertex fake (bearer checked there). */
  apiKey?: string;
  /** The calls of a tool round from the declared function names (several = parallel); undefined answers with text. */
  pick?: (names: string[], body: Json) => GeminiCall[] | undefined;
  /** Tool rounds before the final text (default 1). */
  toolTurns?: number;
  finalText?: string;
  /** Reported as `cachedContentTokenCount` (implicit caching) on every answer. */
  cachedTokens?: number;
  /** The `promptTokenCount` to report for a request (default `USAGE.prompt`): long-context billing. */
  promptTokens?: (body: Json) => number;
  /** The queries Google Search ran for a text answer to a request with `googleSearch` (`google_search`): its grounding. */
  searchQueries?: string[];
  /** A thought part carries a fresh signature of its own (Gemini 2.5 signs thoughts too). */
  signedThoughts?: boolean;
}

/** The route a Gemini request came in on. */
export interface GeminiRoute {
  model: string;
  method: string;
  /** `?alt=sse` was asked for. */
  sse: boolean;
}

export const SKIP_SIGNATURES = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);
export const USAGE = { prompt: 120, candidates: 20, thoughts: 8 };

const TOP_KEYS = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'generationConfig', 'cachedContent', 'model', 'serviceTier', 'labels'];
const GENERATION_KEYS = [
  'stopSequences', 'candidateCount', 'maxOutputTokens', 'temperature', 'topP', 'topK', 'seed', 'presencePenalty', 'frequencyPenalty',
  'responseLogprobs', 'logprobs', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'speechConfig',
  'imageConfig', 'mediaResolution', 'enableEnhancedCivicAnswers', 'thinkingConfig',
];
const PART_KEYS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult', 'thought', 'thoughtSignature', 'videoMetadata', 'partMetadata'];
const TOOL_KEYS = ['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'computerUse', 'fileSearch', 'googleMaps'];
const THINKING_KEYS = ['includeThoughts', 'thinkingBudget', 'thinkingLevel'];
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** `responseMimeType` and `response_mime_type` are one field to a proto JSON parser. */
function names(camel: string[]): Set<string> {
  return new Set(camel.flatMap((key) => [key, key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]));
}
const ALLOWED = { top: names(TOP_KEYS), generation: names(GENERATION_KEYS), part: names(PART_KEYS), tool: names(TOOL_KEYS), thinking: names(THINKING_KEYS), content: names(['role', 'parts']) };

class Rejection extends Error {}
const reject = (message: string): never => {
  throw new Rejection(message);
};

/** Google's error shape (AIP-193). */
export function googleError(code: number, status: string, message: string): FakeReply {
  return { status: code, json: { error: { code, message, status } } };
}

function checkKeys(object: unknown, allowed: Set<string>, where: string): void {
  if (!object || typeof object !== 'object') return;
  for (const key of Object.keys(object)) if (!allowed.has(key)) reject(`Invalid JSON payload received. Unknown name "${key}" at '${where}': Cannot find field.`);
}

const isCall = (part: Json) => part.functionCall !== undefined;
const isResponse = (part: Json) => part.functionResponse !== undefined;
/** A user turn with standard content (not only function responses) starts a new turn. */
const startsTurn = (content: Json) => content.role !== 'model' && (content.parts ?? []).some((p: Json) => !isResponse(p));

/** The index of the content the current turn starts at. */
function turnStart(contents: Json[]): number {
  for (let i = contents.length - 1; i >= 0; i -= 1) if (startsTurn(contents[i])) return i;
  return 0;
}

function checkBody(body: Json, model: GeminiModel, issued: Set<string>): void {
  checkKeys(body, ALLOWED.top, '');
  checkKeys(body.generationConfig, ALLOWED.generation, 'generation_config');
  checkKeys(body.generationConfig?.thinkingConfig, ALLOWED.thinking, 'generation_config.thinking_config');
  const thinking = body.generationConfig?.thinkingConfig;
  if (thinking?.thinkingBudget !== undefined && thinking?.thinkingLevel !== undefined) reject('You can only set only one of thinking budget and thinking level.');
  if ((thinking?.thinkingBudget !== undefined || thinking?.thinkingLevel !== undefined) && !model.thinking) reject('Thinking is not supported by this model.');
  const modalities = body.generationConfig?.responseModalities;
  if (modalities !== undefined && (!Array.isArray(modalities) || modalities.some((m: unknown) => m !== 'TEXT' && m !== 'IMAGE' && m !== 'AUDIO'))) reject('Invalid value at \'generation_config.response_modalities\'.');
  if (Array.isArray(modalities) && modalities.includes('IMAGE') && !model.image) reject('Model does not support the requested response modalities: image');
  (body.tools ?? []).forEach((tool: Json, i: number) => checkKeys(tool, ALLOWED.tool, `tools[${i}]`));
  declaredNames(body).forEach((name, i) => {
    // FunctionDeclaration.name: starts with a letter or `_`; letters, digits, `_ . : -`; at most 64.
    if (!FUNCTION_NAME.test(name ?? '')) reject(`* GenerateContentRequest.tools[0].function_declarations[${i}].name: Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64.`);
  });
  const contents: Json[] = body.contents ?? [];
  if (!Array.isArray(contents) || contents.length === 0) reject('* GenerateContentRequest.contents: contents is not specified');
  contents.forEach((content, i) => {
    checkKeys(content, ALLOWED.content, `contents[${i}]`);
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') reject(`Please use a valid role: user, model.`);
    (content.parts ?? []).forEach((part: Json, j: number) => {
      checkKeys(part, ALLOWED.part, `contents[${i}].parts[${j}]`);
      const signature = part.thoughtSignature;
      if (signature !== undefined && !SKIP_SIGNATURES.has(signature) && !issued.has(signature)) reject(`Corrupted thought signature.`);
    });
    // Every call of a model turn is answered, and only by the user turn right after it.
    const calls = (content.parts ?? []).filter(isCall).length;
    if (content.role === 'model' && calls > 0) {
      const answers = (contents[i + 1]?.parts ?? []).filter(isResponse).length;
      if (i + 1 < contents.length && answers !== calls) reject('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
  });
  if (!model.gemini3) return;
  contents.slice(turnStart(contents)).forEach((content, offset) => {
    if (content.role !== 'model') return;
    const first = (content.parts ?? []).find(isCall);
    if (first && !first.thoughtSignature) reject(`Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.functionCall.name}\` , position ${offset + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`);
  });
}

/**
 * What Google refuses of a thinking config by model: Gemini 2.5 Pro cannot switch thinking off
 * (its budget is 128–32768), Gemini 3 Pro takes the levels low and high only.
 */
function checkThinking(body: Json, id: string): void {
  const thinking = body.generationConfig?.thinkingConfig;
  if (id.startsWith('gemini-2.5-pro') && thinking?.thinkingBudget === 0) reject('Budget 0 is invalid. This model only works in thinking mode.');
  const level = typeof thinking?.thinkingLevel === 'string' ? thinking.thinkingLevel.toLowerCase() : undefined;
  if (id.startsWith('gemini-3-pro') && level !== undefined && level !== 'low' && level !== 'high') reject(`Thinking level ${thinking.thinkingLevel} is not supported for this model. Please retry with other thinking level.`);
}

/** Google's rules for token log probabilities: only a model that has them, `logprobs` 0–20. */
function checkLogprobs(body: Json, id: string, model: GeminiModel): void {
  const config = body.generationConfig ?? {};
  const top = config.logprobs;
  if (top !== undefined && (!Number.isInteger(top) || top < 0 || top > 20)) reject(`logprobs must be in the range [0, 20].`);
  if (config.responseLogprobs === true && !model.logprobs) reject(`Logprobs is not enabled for models/${id}`);
}

/** A `logprobsResult` for answer text chunks (one token each), `top` alternatives per step, as Google writes it. */
export function logprobsResultOf(tokens: string[], top: number): Json {
  const chosenCandidates = tokens.map((token, i) => ({ token, tokenId: 1000 + i, logProbability: -0.25 * (i + 1) }));
  const topCandidates = chosenCandidates.map((chosen) => ({ candidates: [chosen, { token: `${chosen.token}?`, tokenId: chosen.tokenId + 500, logProbability: chosen.logProbability - 2 }].slice(0, top) }));
  return { topCandidates, chosenCandidates, logProbabilitySum: chosenCandidates.reduce((sum, c) => sum + c.logProbability, 0) };
}

function declaredNames(body: Json): string[] {
  return (body.tools ?? []).flatMap((tool: Json) => (tool.functionDeclarations ?? tool.function_declarations ?? []).map((d: Json) => d.name));
}

/**
 * The function a request forces (`functionCallingConfig.mode: ANY` with one function declared or
 * one allowed: what the model then must call, as the AI SDK's JSON tool relies on); undefined otherwise.
 */
function forcedFunction(body: Json): string | undefined {
  const config = body.toolConfig?.functionCallingConfig ?? body.tool_config?.function_calling_config;
  if (config?.mode !== 'ANY') return undefined;
  const allowed: string[] = config.allowedFunctionNames ?? config.allowed_function_names ?? declaredNames(body);
  return allowed.length === 1 ? allowed[0] : undefined;
}

/** How many call rounds the current turn has had. */
function roundsDone(contents: Json[]): number {
  return contents.slice(turnStart(contents)).filter((c) => c.role === 'model' && (c.parts ?? []).some(isCall)).length;
}

function wantsJson(body: Json): boolean {
  return body.generationConfig?.responseMimeType === 'application/json';
}

let counter = 0;

/** A fresh signature: base64 with `+`, `/` and padding, so a re-encoding shows. */
function newSignature(issued: Set<string>): string {
  const signature = Buffer.concat([Buffer.from([0x0a, 0xfb, 0xff, 0x3e]), crypto.randomBytes(41)]).toString('base64');
  issued.add(signature);
  return signature;
}

/** Google's grounding of a text answer: the queries, one web source, one support over the whole text (UTF-8 bytes). */
function groundingOf(text: string, queries: string[]): Json {
  const uri = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQFake';
  return {
    searchEntryPoint: { renderedContent: `<div class="carousel">${queries.map((q) => `<a class="chip">${q}</a>`).join('')}</div>` },
    groundingChunks: [{ web: { uri, title: 'example.org' } }],
    groundingSupports: [{ segment: { startIndex: 0, endIndex: Buffer.byteLength(text), text }, groundingChunkIndices: [0] }],
    webSearchQueries: queries,
  };
}

function hasGoogleSearch(body: Json): boolean {
  return (body.tools ?? []).some((tool: Json) => tool.googleSearch !== undefined || tool.google_search !== undefined);
}

/** What one answer says: its parts (in stream chunks), its usage and its grounding. */
function answer(body: Json, route: GeminiRoute, model: GeminiModel, options: GeminiFakeOptions, issued: Set<string>): { chunks: Json[][]; usage: Json; grounding?: Json } {
  const includeThoughts = model.thinking && body.generationConfig?.thinkingConfig?.includeThoughts === true;
  const thought: Json[] = includeThoughts ? [{ text: 'Thinking about the task.', thought: true }] : [];
  if (thought.length > 0 && options.signedThoughts) thought[0].thoughtSignature = newSignature(issued);
  const contents: Json[] = body.contents;
  const forced = forcedFunction(body);
  const calls = forced && roundsDone(contents) === 0 ? [{ name: forced, args: { answer: 'done' } }] : roundsDone(contents) < (options.toolTurns ?? 1) ? options.pick?.(declaredNames(body), body) : undefined;
  const cached = options.cachedTokens ?? 0;
  const prompt = options.promptTokens?.(body) ?? USAGE.prompt;
  const usage: Json = { promptTokenCount: prompt, candidatesTokenCount: USAGE.candidates, totalTokenCount: prompt + USAGE.candidates, promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }] };
  if (model.thinking) {
    usage.thoughtsTokenCount = USAGE.thoughts;
    usage.totalTokenCount += USAGE.thoughts;
  }
  if (cached > 0) {
    usage.cachedContentTokenCount = cached;
    usage.cacheTokensDetails = [{ modality: 'TEXT', tokenCount: cached }];
  }
  if (calls && calls.length > 0) {
    const parts = calls.map((call, i) => {
      const part: Json = { functionCall: { name: call.name, args: call.args } };
      if (i === 0 && model.thinking) part.thoughtSignature = newSignature(issued);
      return part;
    });
    return { chunks: [...(thought.length ? [thought] : []), parts], usage };
  }
  const text = wantsJson(body) ? JSON.stringify({ answer: 'done' }) : (options.finalText ?? 'Done: the file is written.');
  const half = Math.ceil(text.length / 2);
  const last: Json = { text: text.slice(half) };
  if (model.gemini3 && model.thinking) last.thoughtSignature = newSignature(issued);
  void route;
  const grounding = options.searchQueries && hasGoogleSearch(body) ? groundingOf(text, options.searchQueries) : undefined;
  const modalities: string[] | undefined = body.generationConfig?.responseModalities;
  if (model.image && (!modalities || modalities.includes('IMAGE'))) {
    const image: Json = { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } };
    if (model.gemini3) image.thoughtSignature = newSignature(issued);
    const draft = includeThoughts ? [[{ inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64.slice(0, 40) }, thought: true }]] : [];
    return { chunks: [...(thought.length ? [thought] : []), ...draft, [{ text: text.slice(0, half) }], [image], [last]], usage, grounding };
  }
  return { chunks: [...(thought.length ? [thought] : []), [{ text: text.slice(0, half) }], [last]], usage, grounding };
}

function responseOf(parts: Json[], model: string, id: string, finish?: string, usage?: Json, grounding?: Json, body?: Json): Json {
  const candidate: Json = { content: { role: 'model', parts }, index: 0 };
  const texts = parts.filter((part) => typeof part.text === 'string' && part.thought !== true).map((part) => part.text as string);
  if (body?.generationConfig?.responseLogprobs === true && texts.length > 0) {
    candidate.logprobsResult = logprobsResultOf(texts, body.generationConfig.logprobs ?? 0);
    candidate.avgLogprobs = candidate.logprobsResult.logProbabilitySum / texts.length;
  }
  if (finish) candidate.finishReason = finish;
  if (grounding) candidate.groundingMetadata = grounding;
  const out: Json = { candidates: [candidate], modelVersion: model, responseId: id };
  if (usage) out.usageMetadata = usage;
  return out;
}

/** A generateContent / streamGenerateContent answer in the framing asked for. */
function reply(body: Json, route: GeminiRoute, model: GeminiModel, options: GeminiFakeOptions, issued: Set<string>): FakeReply {
  const { chunks, usage, grounding } = answer(body, route, model, options, issued);
  const id = `resp-${(++counter).toString(36)}`;
  if (route.method === 'generateContent') return { json: responseOf(chunks.flat(), route.model, id, 'STOP', usage, grounding, body) };
  const records = chunks.map((parts, i) => (i === chunks.length - 1 ? responseOf(parts, route.model, id, 'STOP', usage, grounding, body) : responseOf(parts, route.model, id, undefined, undefined, undefined, body)));
  if (route.sse) return { sse: records.map((r) => `data: ${JSON.stringify(r)}\r\n\r\n`) };
  // JSON-array framing: `[`, elements joined by `,` and line breaks, `]`, streamed element by element.
  return { headers: { 'content-type': 'application/json; charset=UTF-8' }, sse: records.map((r, i) => `${i === 0 ? '[' : '\r\n,'}${JSON.stringify(r)}`).concat(['\r\n]']) };
}

/** A `countTokens` answer: the total with its TEXT breakdown; a wrapped request naming a `cachedContent` adds the cached prefix's count (`cachedTokens`), as Google's does. */
function countReply(body: Json, vertex: boolean, cachedTokens = 0): FakeReply {
  let contents: unknown = body.contents;
  let cached = 0;
  if (!vertex) {
    // Proto JSON: the wrapper by either name, as Google takes it.
    const inner = body.generateContentRequest ?? body.generate_content_request;
    if (body.contents !== undefined && inner !== undefined) reject('contents and generate_content_request are mutually exclusive.');
    checkKeys(body, names(['contents', 'generateContentRequest']), '');
    contents = body.contents ?? inner?.contents;
    if (typeof (inner?.cachedContent ?? inner?.cached_content) === 'string') cached = cachedTokens;
  } else checkKeys(body, names(['contents', 'systemInstruction', 'tools', 'generationConfig', 'model', 'instances']), '');
  if (!Array.isArray(contents)) reject('* CountTokensRequest.contents: contents is not specified');
  const totalTokens = countTokensOf(contents) + cached;
  const answer: Json = { totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalTokens }] };
  if (cached > 0) Object.assign(answer, { cachedContentTokenCount: cached, cacheTokensDetails: [{ modality: 'TEXT', tokenCount: cached }] });
  return { json: answer };
}

const EMBED_KEYS = names(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

/** `:batchEmbedContents`: every request names this model and holds text; a vector each (3072 values unless `outputDimensionality`). */
function embedReply(body: Json, model: string): FakeReply {
  checkKeys(body, names(['requests']), '');
  const requests: Json[] = Array.isArray(body.requests) ? body.requests : reject('* BatchEmbedContentsRequest.requests: requests is not specified');
  const embeddings = requests.map((request, i) => {
    checkKeys(request, EMBED_KEYS, `requests[${i}]`);
    if (request.model !== `models/${model}`) reject(`* BatchEmbedContentsRequest.requests[${i}].model: The model in the request must match the model in the URL.`);
    const parts: Json[] = request.content?.parts ?? [];
    if (parts.length === 0 || parts.some((part) => typeof part.text !== 'string')) reject(`* BatchEmbedContentsRequest.requests[${i}].content: text parts only`);
    return { values: embeddingOf(parts.map((part) => part.text).join(''), request.outputDimensionality ?? 3072) };
  });
  return { json: { embeddings } };
}

/** Vertex's `:predict` for an embedding model: one instance a call (gemini-embedding-001's rule), its vector and token count. */
function predictEmbedReply(body: Json): FakeReply {
  checkKeys(body, names(['instances', 'parameters']), '');
  checkKeys(body.parameters, names(['outputDimensionality', 'autoTruncate']), 'parameters');
  const instances: Json[] = Array.isArray(body.instances) ? body.instances : reject('instances is required');
  if (instances.length !== 1) reject('Unable to submit request because the model supports only 1 instance per request. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api');
  checkKeys(instances[0], names(['content', 'taskType', 'title']), 'instances[0]');
  const text = typeof instances[0].content === 'string' ? instances[0].content : reject('instances[0].content must be a string');
  const values = embeddingOf(text, body.parameters?.outputDimensionality ?? 3072);
  return { json: { predictions: [{ embeddings: { values, statistics: { token_count: embeddingTokensOf(text), truncated: false } } }], metadata: { billableCharacterCount: text.length } } };
}

/** The token count Vertex's fake reports for an embedded text (a test computes the same). */
export function embeddingTokensOf(text: string): number {
  return 1 + text.split(' ').length;
}

/** The fake's vector for a text (a test computes the same). */
export function embeddingOf(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((text.length + i) % 7) / 7);
}

/** The fake's token count for a `contents` array (a test computes the same). */
export function countTokensOf(contents: unknown): number {
  return 3 + Math.ceil(JSON.stringify(contents).length / 4);
}

export interface GeminiHandler {
  handle(request: ReceivedRequest, route: GeminiRoute, vertex: boolean): FakeReply;
  rejections: string[];
  issued: Set<string>;
}

/** The Gemini request handling shared by the AI Studio and Vertex fakes. */
export function createGeminiHandler(options: GeminiFakeOptions): GeminiHandler {
  const rejections: string[] = [];
  const issued = new Set<string>();
  return {
    rejections,
    issued,
    handle(request, route, vertex) {
      const model = options.models[route.model];
      if (!model) return googleError(404, 'NOT_FOUND', `models/${route.model} is not found for API version v1beta, or is not supported for generateContent.`);
      try {
        const body: Json = request.json ?? reject('Invalid JSON payload received.');
        if (route.method === 'countTokens') return countReply(body, vertex, options.cachedTokens);
        const embedMethod = vertex ? 'predict' : 'batchEmbedContents';
        if ((model.embedding === true) !== (route.method === embedMethod)) return googleError(404, 'NOT_FOUND', `models/${route.model} is not found for API version v1beta, or is not supported for ${route.method}.`);
        if (route.method === embedMethod) return vertex ? predictEmbedReply(body) : embedReply(body, route.model);
        if (route.method !== 'generateContent' && route.method !== 'streamGenerateContent') return googleError(404, 'NOT_FOUND', `Method ${route.method} not found.`);
        checkBody(body, model, issued);
        checkThinking(body, route.model);
        checkLogprobs(body, route.model, model);
        return reply(body, route, model, options, issued);
      } catch (error) {
        if (!(error instanceof Rejection)) throw error;
        rejections.push(error.message);
        return googleError(400, 'INVALID_ARGUMENT', error.message);
      }
    },
  };
}

export interface GeminiFake extends FakeUpstream {
  rejections: string[];
  /** Signatures this fake issued (a test checks a client's history carries them byte-exact). */
  issued: Set<string>;
  /** The next `times` generation requests get `reply` (a 429, a 500…). */
  failNext(reply: FakeReply, times?: number): void;
}

/** Google's answer to a wrong API key (AI Studio), details and all. */
const API_KEY_INVALID: FakeReply = {
  status: 400,
  json: {
    error: {
      code: 400,
      message: 'API key not valid. Please pass a valid API key.',
      status: 'INVALID_ARGUMENT',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
        { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
      ],
    },
  },
};

const AI_STUDIO_PATH = /^\/v1beta\/models\/([^/:?]+):([A-Za-z]+)(?:\?(.*))?$/;

function modelObject(id: string, model: GeminiModel): Json {
  return {
    name: `models/${id}`, version: '001', displayName: id, description: `Fake ${id}`, inputTokenLimit: 1_048_576, outputTokenLimit: model.outputTokenLimit ?? 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens'], temperature: 1, topP: 0.95, topK: 64, maxTemperature: 2, thinking: model.thinking,
  };
}

/** Starts a Gemini API (AI Studio) fake on 127.0.0.1: `/v1beta/models…`, key in `x-goog-api-key` or `?key=`. */
export async function startGeminiFake(options: GeminiFakeOptions): Promise<GeminiFake> {
  const handler = createGeminiHandler(options);
  const failures: FakeReply[] = [];
  const handle = (request: ReceivedRequest): FakeReply => {
    const url = new URL(request.path, 'http://fake');
    const key = request.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (!key) return googleError(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
    // As Google answers a wrong key: a 400 INVALID_ARGUMENT whose ErrorInfo reason says what it is.
    if (options.apiKey !== undefined && key !== options.apiKey) return API_KEY_INVALID;
    if (request.method === 'GET' && url.pathname === '/v1beta/models') return { json: { models: Object.entries(options.models).map(([id, m]) => modelObject(id, m)) } };
    const match = request.method === 'POST' ? AI_STUDIO_PATH.exec(request.path) : null;
    if (!match) return googleError(404, 'NOT_FOUND', `The requested URL ${url.pathname} was not found on this server.`);
    const failure = failures.shift();
    if (failure) return failure;
    return handler.handle(request, { model: decodeURIComponent(match[1]), method: match[2], sse: new URLSearchParams(match[3] ?? '').get('alt') === 'sse' }, false);
  };
  const base = await startFakeUpstream(handle);
  return Object.assign(base, {
    rejections: handler.rejections,
    issued: handler.issued,
    failNext: (reply: FakeReply, times = 1) => {
      for (let i = 0; i < times; i += 1) failures.push(reply);
    },
  });
}
