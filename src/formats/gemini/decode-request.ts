import { GatewayError } from '../../errors/index.ts';
import type { ChatRequest, ContentPart, FilePart, ImagePart, Message, ReasoningEffort, ReasoningPart, ResponseFormat, TextPart, ToolCallPart, ToolDefinition, Unconvertible } from '../../ir/index.ts';
import { FieldChecker, badRequest, collectExtra, decodeBase64, isRecord, readCarried, restoreReasoning, standardBase64 } from '../shared/index.ts';
import type { RouteTarget } from '../types.ts';
import { metadataOf, readToolCallId, synthesizedCallId } from './signature.ts';
import { schemaToJsonSchema } from './map-schema.ts';
import { camelizeGeminiBody } from './proto-json.ts';

/** Top-level fields the IR holds; the rest (safetySettings, cachedContent, serviceTier, …) go to `extra`. */
const KNOWN = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
/** Fields with no meaning outside Google: kept for a Gemini upstream, and a conversion refuses them (422 naming the field). */
const GOOGLE_ONLY = ['cachedContent'];
const GENERATION_ONLY = ['responseModalities', 'speechConfig', 'imageConfig', 'mediaResolution', 'enableEnhancedCivicAnswers'];
/** A Map: the level is the client's text, never a prototype key (`toString`). */
const LEVELS: ReadonlyMap<string, ReasoningEffort> = new Map([
  ['minimal', 'minimal'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
]);

/** A `generateContent` body → IR. The model and stream flag come from the URL (RouteTarget). */
export function decodeGeminiRequest(raw: unknown, target?: RouteTarget): ChatRequest {
  if (!isRecord(raw)) throw badRequest('Request body must be a JSON object.');
  const body = camelizeGeminiBody(raw);
  if (!target) throw badRequest('The Gemini format reads the model from the path (/v1beta/models/{model}:generateContent).');
  const check = new FieldChecker();
  const unconvertible: Unconvertible[] = [];
  const request: ChatRequest = { model: target.model, system: [], messages: [], stream: target.stream };
  if (target.stream) request.includeUsage = true;
  if (body.contents === undefined || body.contents === null) throw new GatewayError('bad_request', "Missing required field 'contents'.", { details: { missing: ['contents'] } });
  const contents = check.array(body.contents, 'contents') ?? [];
  const reader = new ContentReader(check, unconvertible);
  contents.forEach((content, i) => reader.read(content, `contents[${i}]`));
  request.messages = reader.messages;
  const system = check.record(body.systemInstruction, 'systemInstruction');
  if (system) request.system = systemParts(system, check);
  readTools(body.tools, request, check, unconvertible);
  readToolConfig(body.toolConfig, request, check, unconvertible);
  readGenerationConfig(body.generationConfig, request, check, unconvertible);
  for (const field of GOOGLE_ONLY) if (body[field] !== undefined) unconvertible.push({ field, message: 'is a Google resource; it can only go to a Gemini upstream' });
  check.throwIfAny();
  const extra = collectExtra(body, KNOWN);
  if (extra) request.extra = extra;
  if (unconvertible.length > 0) request.unconvertible = unconvertible;
  return request;
}

function systemParts(system: Record<string, unknown>, check: FieldChecker): TextPart[] {
  const parts = check.array(system.parts, 'systemInstruction.parts') ?? [];
  return parts.flatMap((part, i) => {
    if (!isRecord(part) || typeof part.text !== 'string') {
      check.fail(`systemInstruction.parts[${i}]`, 'must be a text part');
      return [];
    }
    return [{ type: 'text' as const, text: part.text }];
  });
}

/** Reads `contents[]`, pairing each functionResponse with its call (by id, else by name in order). */
class ContentReader {
  readonly messages: Message[] = [];
  /** Calls of the last model turn not answered yet, by name. */
  private pending = new Map<string, string[]>();
  private calls = 0;

  constructor(
    private readonly check: FieldChecker,
    private readonly unconvertible: Unconvertible[],
  ) {}

  read(content: unknown, at: string): void {
    if (!isRecord(content)) return this.check.fail(at, 'must be an object');
    const role = content.role ?? 'user';
    if (role !== 'user' && role !== 'model') return this.check.fail(`${at}.role`, "must be 'user' or 'model'");
    const parts = this.check.array(content.parts, `${at}.parts`) ?? [];
    if (role === 'model') this.pending = new Map();
    const own: ContentPart[] = [];
    const results: ContentPart[] = [];
    parts.forEach((part, i) => {
      const path = `${at}.parts[${i}]`;
      if (!isRecord(part)) return this.check.fail(path, 'must be an object');
      if (isRecord(part.functionResponse)) results.push(this.functionResponse(part.functionResponse, `${path}.functionResponse`));
      else {
        const carried = role === 'model' ? carriedOnCall(part, own) : undefined;
        // It was the answer's first reasoning: before a later one that came back as a thought (a redacted block).
        const at = own.findIndex((p) => p.type === 'reasoning');
        if (carried) own.splice(at < 0 ? own.length : at, 0, carried);
        const decoded = this.part(part, path, role === 'model');
        if (decoded) own.push(decoded);
      }
    });
    // Results are `tool` messages, like Chat's; the rest of the turn follows them.
    for (const result of results) this.messages.push({ role: 'tool', content: [result] });
    if (own.length > 0 || results.length === 0) this.messages.push({ role: role === 'model' ? 'assistant' : 'user', content: own });
  }

  private part(part: Record<string, unknown>, path: string, fromModel: boolean): ContentPart | undefined {
    const metadata = metadataOf(part.thoughtSignature, this.check, `${path}.thoughtSignature`);
    for (const key of ['videoMetadata', 'partMetadata', 'executableCode', 'codeExecutionResult']) {
      if (part[key] !== undefined) this.unconvertible.push({ field: `${path}.${key}`, message: 'has no equivalent in the upstream format' });
    }
    if (typeof part.text === 'string') {
      if (part.thought === true) {
        // A thought part may carry another vendor's reasoning the gateway put in its signature.
        const carried = typeof part.thoughtSignature === 'string' ? readCarried(part.thoughtSignature) : undefined;
        if (carried) return restoreReasoning({ type: 'reasoning', text: part.text }, carried);
        return metadata ? { type: 'reasoning', text: part.text, providerMetadata: metadata } : { type: 'reasoning', text: part.text };
      }
      return metadata ? { type: 'text', text: part.text, providerMetadata: metadata } : { type: 'text', text: part.text };
    }
    if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      const name = this.check.requiredString(call.name, `${path}.functionCall.name`);
      const args = call.args === undefined || call.args === null ? {} : this.check.record(call.args, `${path}.functionCall.args`);
      const id = typeof call.id === 'string' && call.id !== '' ? readToolCallId(call.id) : synthesizedCallId(this.calls);
      this.calls += 1;
      if (fromModel) this.pending.set(name, [...(this.pending.get(name) ?? []), id]);
      const out: ToolCallPart = { type: 'tool_call', id, name, arguments: JSON.stringify(args ?? {}) };
      // Another vendor's reasoning the gateway put on the call (carriedOnCall) is no signature of the call's; it may name the call's OpenAI item id.
      const carried = typeof part.thoughtSignature === 'string' ? readCarried(part.thoughtSignature) : undefined;
      if (metadata && !carried) out.providerMetadata = metadata;
      if (carried?.call !== undefined) out.itemId = carried.call;
      return out;
    }
    if (isRecord(part.inlineData)) {
      const mimeType = this.check.requiredString(part.inlineData.mimeType, `${path}.inlineData.mimeType`);
      // Google takes URL-safe base64 (google-genai for Python sends it); the other APIs, the standard alphabet.
      const data = standardBase64(this.check.requiredString(part.inlineData.data, `${path}.inlineData.data`));
      if (mimeType.startsWith('audio/')) return { type: 'audio', data, format: mimeType.slice('audio/'.length) };
      // A text file (an uploaded .txt, .md, .csv) is a text document: Chat upstreams take it as text, Anthropic as a text source.
      if (mimeType.startsWith('text/')) {
        try {
          return { type: 'file', source: { kind: 'text', mediaType: mimeType, data: decodeBase64(data) } };
        } catch {
          this.check.fail(`${path}.inlineData.data`, 'must be base64');
          return undefined;
        }
      }
      const source = { kind: 'base64' as const, mediaType: mimeType, data };
      return mimeType.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
    }
    if (isRecord(part.fileData)) {
      const url = this.check.requiredString(part.fileData.fileUri, `${path}.fileData.fileUri`);
      const mimeType = typeof part.fileData.mimeType === 'string' ? part.fileData.mimeType : '';
      if (url.startsWith('https://generativelanguage.googleapis.com/') || url.startsWith('gs://')) {
        this.unconvertible.push({ field: `${path}.fileData.fileUri`, message: 'is a Google file; it can only go to a Gemini upstream' });
      }
      return mimeType.startsWith('image/') || mimeType === '' ? { type: 'image', source: { kind: 'url', url } } : { type: 'file', source: { kind: 'url', url } };
    }
    if (part.thoughtSignature !== undefined || part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
      // A part holding only a signature (Gemini streams send one on an empty part): kept as empty text.
      return metadata ? { type: 'text', text: '', providerMetadata: metadata } : undefined;
    }
    this.check.fail(path, 'must have one of text, inlineData, fileData, functionCall, functionResponse');
    return undefined;
  }

  private functionResponse(response: Record<string, unknown>, path: string): ContentPart {
    const name = this.check.requiredString(response.name, `${path}.name`);
    const value = response.response === undefined ? {} : this.check.record(response.response, `${path}.response`);
    let id: string;
    if (typeof response.id === 'string' && response.id !== '') id = readToolCallId(response.id);
    else {
      const queue = this.pending.get(name);
      id = queue?.shift() ?? synthesizedCallId(this.calls++);
    }
    const output = JSON.stringify(value ?? {});
    const media = this.resultMedia(response.parts, `${path}.parts`);
    const result: ContentPart = { type: 'tool_result', toolCallId: id, content: media.length > 0 ? [{ type: 'text', text: output }, ...media] : output };
    // Google's key for error details: a response holding only `error` is a failed call (Anthropic's is_error).
    if (value && Object.keys(value).length === 1 && value.error !== undefined) result.isError = true;
    return result;
  }

  /**
   * Gemini 3's multimodal function response (`functionResponse.parts`: an image or a document the
   * tool gave, as `inlineData` or `fileData`) → the tool result's media, after its JSON output, as
   * the IR carries a tool result's images and files (each upstream format places them its way).
   */
  private resultMedia(value: unknown, path: string): Array<ImagePart | FilePart> {
    const parts = value === undefined ? [] : (this.check.array(value, path) ?? []);
    const media: Array<ImagePart | FilePart> = [];
    parts.forEach((part, i) => {
      const at = `${path}[${i}]`;
      if (!isRecord(part) || (part.inlineData === undefined && part.fileData === undefined)) return this.check.fail(at, 'must have inlineData or fileData');
      const decoded = this.part(part, at, false);
      if (decoded?.type === 'image' || decoded?.type === 'file') media.push(decoded);
      else this.unconvertible.push({ field: at, message: 'has no equivalent in the upstream format' });
    });
    return media;
  }
}

function readTools(value: unknown, request: ChatRequest, check: FieldChecker, unconvertible: Unconvertible[]): void {
  const tools = check.array(value, 'tools');
  if (!tools) return;
  const out: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) return check.fail(at, 'must be an object');
    for (const key of Object.keys(tool)) {
      if (key === 'functionDeclarations') {
        const declarations = check.array(tool.functionDeclarations, `${at}.functionDeclarations`) ?? [];
        declarations.forEach((declaration, j) => {
          const path = `${at}.functionDeclarations[${j}]`;
          if (!isRecord(declaration)) return check.fail(path, 'must be an object');
          const definition: ToolDefinition = { name: check.requiredString(declaration.name, `${path}.name`) };
          if (typeof declaration.description === 'string') definition.description = declaration.description;
          if (isRecord(declaration.parametersJsonSchema)) definition.parameters = declaration.parametersJsonSchema;
          else if (isRecord(declaration.parameters)) definition.parameters = schemaToJsonSchema(declaration.parameters);
          out.push(definition);
        });
      } else if (key === 'googleSearch') request.webSearch = {};
      else unconvertible.push({ field: `${at}.${key}`, message: 'is a tool only Google runs' });
    }
  });
  if (out.length > 0) request.tools = out;
}

function readToolConfig(value: unknown, request: ChatRequest, check: FieldChecker, unconvertible: Unconvertible[]): void {
  const config = check.record(value, 'toolConfig');
  if (!config) return;
  if (config.retrievalConfig !== undefined) unconvertible.push({ field: 'toolConfig.retrievalConfig', message: 'has no equivalent in the upstream format' });
  const calling = check.record(config.functionCallingConfig, 'toolConfig.functionCallingConfig');
  if (!calling) return;
  const mode = check.oneOf(calling.mode, 'toolConfig.functionCallingConfig.mode', ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'] as const);
  const allowed = check.stringList(calling.allowedFunctionNames, 'toolConfig.functionCallingConfig.allowedFunctionNames');
  if (mode === 'NONE') request.toolChoice = 'none';
  else if (mode === 'ANY') {
    if (allowed?.length === 1) request.toolChoice = { type: 'tool', name: allowed[0] };
    else {
      request.toolChoice = 'required';
      // Only the allowed functions may be called: the others are left out.
      if (allowed && request.tools) request.tools = request.tools.filter((tool) => allowed.includes(tool.name));
    }
  } else if (mode === 'AUTO') request.toolChoice = 'auto';
  else if (mode === 'VALIDATED') unconvertible.push({ field: 'toolConfig.functionCallingConfig.mode', message: "'VALIDATED' has no equivalent in the upstream format" });
}

/**
 * `responseModalities` that ask for images (TEXT and IMAGE only) as the IR's output modalities: an
 * image model's own request, and on an OpenAI Responses upstream what adds its image tool.
 * Undefined for any other list (AUDIO has no equivalent).
 */
function imageModalities(value: unknown): Array<'text' | 'image'> | undefined {
  if (!Array.isArray(value)) return undefined;
  const modalities = value.map((m) => (typeof m === 'string' ? m.toLowerCase() : ''));
  if (!modalities.includes('image') || !modalities.every((m) => m === 'text' || m === 'image')) return undefined;
  return modalities as Array<'text' | 'image'>;
}

function readGenerationConfig(value: unknown, request: ChatRequest, check: FieldChecker, unconvertible: Unconvertible[]): void {
  const config = check.record(value, 'generationConfig');
  if (!config) return;
  const at = (key: string) => `generationConfig.${key}`;
  const set = <K extends keyof ChatRequest>(key: K, v: ChatRequest[K] | undefined) => {
    if (v !== undefined) request[key] = v;
  };
  set('temperature', check.number(config.temperature, at('temperature'), { min: 0, max: 2 }));
  set('topP', check.number(config.topP, at('topP'), { min: 0, max: 1 }));
  set('topK', check.number(config.topK, at('topK'), { min: 1, integer: true }));
  set('maxTokens', check.number(config.maxOutputTokens, at('maxOutputTokens'), { min: 1, integer: true }));
  set('stop', check.stringList(config.stopSequences, at('stopSequences')));
  set('n', check.number(config.candidateCount, at('candidateCount'), { min: 1, max: 8, integer: true }));
  set('seed', check.number(config.seed, at('seed'), { integer: true }));
  set('presencePenalty', check.number(config.presencePenalty, at('presencePenalty')));
  set('frequencyPenalty', check.number(config.frequencyPenalty, at('frequencyPenalty')));
  const modalities = imageModalities(config.responseModalities);
  if (modalities) request.outputModalities = modalities;
  for (const key of GENERATION_ONLY) if (config[key] !== undefined && !(key === 'responseModalities' && modalities)) unconvertible.push({ field: at(key), message: 'has no equivalent in the upstream format' });
  if (check.boolean(config.responseLogprobs, at('responseLogprobs')) === true) {
    request.logprobs = true;
    set('topLogprobs', check.number(config.logprobs, at('logprobs'), { min: 0, max: 20, integer: true }));
  }
  set('responseFormat', responseFormatOf(config, check, unconvertible));
  const thinking = check.record(config.thinkingConfig, at('thinkingConfig'));
  if (thinking) {
    const budget = check.number(thinking.thinkingBudget, at('thinkingConfig.thinkingBudget'), { min: -1, integer: true });
    // THINKING_LEVEL_UNSPECIFIED is the enum's zero: no level, the model's default (Qwen Code sends it on every request).
    const written = check.string(thinking.thinkingLevel, at('thinkingConfig.thinkingLevel'))?.toLowerCase();
    const level = written === 'thinking_level_unspecified' ? undefined : written;
    if (budget !== undefined && level !== undefined) check.fail(at('thinkingConfig'), 'thinkingBudget and thinkingLevel cannot both be set');
    if (level !== undefined && !LEVELS.has(level)) check.fail(at('thinkingConfig.thinkingLevel'), 'must be one of MINIMAL, LOW, MEDIUM, HIGH');
    if (budget === 0) request.reasoning = { enabled: false };
    else if (budget !== undefined && budget > 0) request.reasoning = { enabled: true, budgetTokens: budget };
    else if (level !== undefined && LEVELS.has(level)) request.reasoning = { enabled: true, effort: LEVELS.get(level)! };
    else if (budget === -1 || thinking.includeThoughts === true) request.reasoning = { enabled: true };
    if (request.reasoning && thinking.includeThoughts === true) request.reasoning.summary = 'auto';
  }
}

function responseFormatOf(config: Record<string, unknown>, check: FieldChecker, unconvertible: Unconvertible[]): ResponseFormat | undefined {
  const mime = check.string(config.responseMimeType, 'generationConfig.responseMimeType');
  const jsonSchema = check.record(config.responseJsonSchema, 'generationConfig.responseJsonSchema');
  const schema = check.record(config.responseSchema, 'generationConfig.responseSchema');
  if (jsonSchema && schema) check.fail('generationConfig.responseSchema', 'responseSchema and responseJsonSchema cannot both be set');
  if (mime === undefined || mime === 'text/plain') {
    if (jsonSchema || schema) check.fail('generationConfig.responseMimeType', 'a response schema needs responseMimeType application/json');
    return undefined;
  }
  if (mime === 'text/x.enum') return enumFormatOf(jsonSchema ?? (schema && schemaToJsonSchema(schema)), check);
  if (mime !== 'application/json') {
    unconvertible.push({ field: 'generationConfig.responseMimeType', message: `'${mime}' has no equivalent in the upstream format` });
    return undefined;
  }
  if (jsonSchema) return { type: 'json_schema', name: 'response', schema: jsonSchema };
  if (schema) return { type: 'json_schema', name: 'response', schema: schemaToJsonSchema(schema) };
  return { type: 'json_object' };
}

/** The property a `text/x.enum` answer is wrapped in on a converted route. */
const ENUM_ANSWER = 'answer';

/**
 * `text/x.enum` with a string enum schema: Gemini answers one of the values as plain text. Other
 * formats take a JSON schema with an object at the root, so the enum goes as the one property of
 * an object (strict), and the answer is unwrapped for the client (`unwrap`).
 */
function enumFormatOf(schema: Record<string, unknown> | undefined, check: FieldChecker): ResponseFormat {
  const values = schema?.enum;
  if (!Array.isArray(values) || values.length === 0 || values.some((v) => typeof v !== 'string') || (schema?.type !== undefined && schema.type !== 'string')) {
    check.fail('generationConfig.responseSchema', "responseMimeType 'text/x.enum' needs a string schema with an enum");
  }
  const answer: Record<string, unknown> = { type: 'string', enum: values };
  if (typeof schema?.description === 'string') answer.description = schema.description;
  return {
    type: 'json_schema',
    name: 'enum_answer',
    schema: { type: 'object', properties: { [ENUM_ANSWER]: answer }, required: [ENUM_ANSWER], additionalProperties: false },
    strict: true,
    unwrap: ENUM_ANSWER,
  };
}

/**
 * Another vendor's reasoning the gateway put on an answer's first call (encode-response callCarry:
 * gemini-cli keeps no thoughts), restored to go before the call; undefined when the call carries
 * none or the same reasoning already came back as a thought of this turn (the AI SDK keeps both).
 * Plain reasoning marked only with the model that wrote it (DeepSeek's reasoning_content, which
 * it refuses a tool loop without) comes back too, matched to a returned thought by text and mark.
 */
function carriedOnCall(part: Record<string, unknown>, before: readonly ContentPart[]): ReasoningPart | undefined {
  if (!isRecord(part.functionCall) || typeof part.thoughtSignature !== 'string') return undefined;
  const carried = readCarried(part.thoughtSignature);
  if (!carried) return undefined;
  const opaque = carried.signature !== undefined || carried.redacted !== undefined || carried.encrypted !== undefined;
  const marked = (p: ReasoningPart) => p.signature === undefined && p.encrypted === undefined && p.redacted !== true && p.text === (carried.text ?? '') && JSON.stringify(p.providerMetadata) === JSON.stringify(carried.metadata);
  const same = before.some(
    (p) => p.type === 'reasoning' && (opaque ? (carried.signature !== undefined && p.signature === carried.signature) || (carried.redacted !== undefined && p.data === carried.redacted) || (carried.encrypted !== undefined && p.encrypted === carried.encrypted) : marked(p)),
  );
  return same ? undefined : restoreReasoning({ type: 'reasoning', text: '' }, carried);
}
