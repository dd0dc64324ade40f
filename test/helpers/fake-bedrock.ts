/**
 * A strict fake of the Bedrock runtime API (issue 23): checks what the real one checks and
 * answers in its wire. Auth: SigV4 recomputed from the request and the secret (wrong region,
 * stale date, tampered body, unknown key, missing session token → 403 in Bedrock's shape), or a
 * Bedrock API key as `Authorization: Bearer`. Invoke (Claude, Messages bodies with
 * `anthropic_version`, no `model`/`stream`) and Converse (unknown fields, roles, blocks, tool
 * ids and signatures checked). Streams are real event-stream frames (Smithy's codec, valid
 * CRCs) written in small pieces across TCP writes; faults on demand: throttles, a corrupt CRC,
 * an exception frame mid-stream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { amzDateMs, computeSignature, parseAuthorization, payloadHashOf, sameSignature } from './sigv4-verify.ts';
import { REDACTED, SIGNATURE, converseEvents, converseResponse, converseTurn, invokeEvents, invokeResponse, invokeTurn } from './fake-bedrock-replies.ts';

type Json = Record<string, any>;

export interface FakeBedrockOptions {
  region: string;
  /**
   * Access keys the fake knows (a session token makes them temporary: the token must come along;
   * past `expiration` they are refused). The list may grow while the fake runs (rotated keys).
   */
  credentials?: Array<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string; expiration?: Date }>;
  /** Bedrock API keys accepted as `Authorization: Bearer`. */
  apiKeys?: string[];
  /** Model ids the fake serves (inference-profile prefixes included); others are a 400 ValidationException. Default: any. */
  models?: string[];
  /** The fake's clock minus the real one (a gateway whose clock is off by more than 5 minutes is refused). */
  clockSkewMs?: number;
}

export interface FakeBedrockFaults {
  /** The next n calls answer 429 ThrottlingException. */
  throttle: number;
  /** Stream bytes per TCP write (frames are split across writes). */
  splitEvery: number;
  /** Flip a byte of the message at this index of the next stream (a bad CRC). */
  badCrcAt?: number;
  /** After this many messages of the next stream, an exception frame ends it (`fields` beside its message: ModelStreamErrorException's originalStatusCode). */
  exceptionAfter?: { index: number; name: string; message: string; fields?: Json };
  /** The next Converse answers (whole or streamed) end with this stopReason and no content (`malformed_tool_use`: a call the model wrote that Bedrock could not read). */
  stopReasonNext?: { stopReason: string; times: number };
}

export interface BedrockRequest {
  method: string;
  path: string;
  model: string;
  action: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Json | undefined;
}

export interface FakeBedrock {
  url: string;
  requests: BedrockRequest[];
  /** What the fake refused, with its messages (a test asserts exactly what it expects). */
  rejections: string[];
  faults: FakeBedrockFaults;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

function frame(headers: Record<string, string>, payload: Json): Buffer {
  const tagged = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { type: 'string' as const, value: v }]));
  return Buffer.from(codec.encode({ headers: tagged, body: new Uint8Array(Buffer.from(JSON.stringify(payload))) }));
}

const eventFrame = (type: string, payload: Json) => frame({ ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' }, payload);
const exceptionFrame = (name: string, message: string, fields: Json = {}) => frame({ ':message-type': 'exception', ':exception-type': name, ':content-type': 'application/json' }, { message, ...fields });

class BedrockError extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
  }
}

const refuse = (status: number, type: string, message: string): never => {
  throw new BedrockError(status, type, message);
};
const invalid = (message: string): never => refuse(400, 'ValidationException', message);

const MESSAGES_KEYS = new Set(['anthropic_version', 'anthropic_beta', 'messages', 'system', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools', 'tool_choice', 'thinking', 'metadata', 'output_config', 'context_management']);
const CONVERSE_KEYS = new Set(['messages', 'system', 'inferenceConfig', 'toolConfig', 'additionalModelRequestFields', 'additionalModelResponseFieldPaths', 'guardrailConfig', 'promptVariables', 'requestMetadata', 'performanceConfig']);
const INFERENCE_KEYS = new Set(['maxTokens', 'temperature', 'topP', 'stopSequences']);
const BLOCK_KEYS = new Set(['text', 'image', 'document', 'video', 'toolUse', 'toolResult', 'guardContent', 'cachePoint', 'reasoningContent', 'citationsContent']);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function checkInvoke(model: string, body: Json): void {
  if (!/anthropic\.claude/.test(model)) invalid(`The model ${model} does not take Anthropic Messages bodies.`);
  for (const key of Object.keys(body)) if (!MESSAGES_KEYS.has(key)) invalid(`Malformed input request: extraneous key [${key}] is not permitted, please reformat your input and try again.`);
  if (body.anthropic_version !== 'bedrock-2023-05-31') invalid('Malformed input request: anthropic_version must be bedrock-2023-05-31.');
  if (!Array.isArray(body.messages) || body.messages.length === 0) invalid('Malformed input request: messages is required.');
  if (typeof body.max_tokens !== 'number') invalid('Malformed input request: max_tokens is required.');
  for (const message of body.messages as Json[]) {
    if (message.role !== 'user' && message.role !== 'assistant') invalid(`Malformed input request: role ${message.role} is not permitted.`);
    for (const block of Array.isArray(message.content) ? message.content : []) {
      if (block.type === 'thinking' && block.signature !== SIGNATURE) invalid('messages: Invalid `signature` in `thinking` block');
      if (block.type === 'redacted_thinking' && block.data !== REDACTED) invalid('messages: Invalid `data` in `redacted_thinking` block');
    }
  }
}

function checkBlock(block: Json, where: string, toolIds: Set<string>): void {
  const keys = Object.keys(block ?? {});
  if (keys.length !== 1 || !BLOCK_KEYS.has(keys[0])) invalid(`${where}: a content block has exactly one member of ${[...BLOCK_KEYS].join(', ')}; got ${keys.join(', ')}`);
  if (block.image) {
    if (!['png', 'jpeg', 'gif', 'webp'].includes(block.image.format)) invalid(`${where}.image.format: ${block.image.format} is not supported`);
    if (typeof block.image.source?.bytes !== 'string' || !BASE64.test(block.image.source.bytes)) invalid(`${where}.image.source.bytes must be base64`);
  }
  if (block.toolUse) {
    const t = block.toolUse;
    if (typeof t.toolUseId !== 'string' || typeof t.name !== 'string' || typeof t.input !== 'object' || t.input === null || Array.isArray(t.input)) invalid(`${where}.toolUse needs toolUseId, name and an input object`);
    toolIds.add(t.toolUseId);
  }
  if (block.toolResult) {
    if (!toolIds.has(block.toolResult.toolUseId)) invalid(`${where}.toolResult.toolUseId ${block.toolResult.toolUseId} matches no toolUse`);
    for (const c of block.toolResult.content ?? []) if (!c || Object.keys(c).length !== 1 || !['text', 'json', 'image', 'document'].includes(Object.keys(c)[0])) invalid(`${where}.toolResult.content has an unknown member`);
  }
  if (block.reasoningContent) {
    const r = block.reasoningContent;
    if (r.reasoningText && r.reasoningText.signature !== SIGNATURE) invalid(`${where}.reasoningContent: the signature is not the one the model sent`);
    if (r.redactedContent !== undefined && r.redactedContent !== REDACTED) invalid(`${where}.reasoningContent.redactedContent was changed`);
  }
}

function checkConverse(body: Json): void {
  for (const key of Object.keys(body)) if (!CONVERSE_KEYS.has(key)) invalid(`Unknown field: ${key}`);
  for (const key of Object.keys(body.inferenceConfig ?? {})) if (!INFERENCE_KEYS.has(key)) invalid(`Unknown field: inferenceConfig.${key}`);
  const messages: Json[] = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) invalid('messages: at least one message is required');
  if (messages[0].role !== 'user') invalid('A conversation must start with a user message.');
  const toolIds = new Set<string>();
  let usesTools = false;
  messages.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant') invalid(`messages.${i}.role: ${m.role} is not user or assistant`);
    if (i > 0 && messages[i - 1].role === m.role) invalid('A conversation must alternate between user and assistant roles.');
    if (!Array.isArray(m.content) || m.content.length === 0) invalid(`messages.${i}.content must not be empty`);
    for (const block of m.content) {
      checkBlock(block, `messages.${i}.content`, toolIds);
      if (block.toolUse || block.toolResult) usesTools = true;
    }
  });
  for (const block of body.system ?? []) if (Object.keys(block).length !== 1 || !('text' in block || 'cachePoint' in block || 'guardContent' in block)) invalid('system: unknown block');
  if (usesTools && !body.toolConfig) invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  if (body.toolConfig) {
    for (const tool of body.toolConfig.tools ?? []) {
      if (tool.cachePoint) continue;
      if (typeof tool.toolSpec?.name !== 'string' || typeof tool.toolSpec?.inputSchema?.json !== 'object') invalid('toolConfig.tools: each tool is {toolSpec: {name, inputSchema: {json}}}');
    }
    const choice = body.toolConfig.toolChoice;
    if (choice !== undefined && (Object.keys(choice).length !== 1 || !['auto', 'any', 'tool'].includes(Object.keys(choice)[0]))) invalid('toolConfig.toolChoice is one of auto, any, tool');
  }
}

function checkAuth(req: http.IncomingMessage, body: Buffer, options: FakeBedrockOptions): void {
  const header = req.headers.authorization ?? '';
  if (header.startsWith('Bearer ')) {
    if (!(options.apiKeys ?? []).includes(header.slice(7))) refuse(403, 'UnrecognizedClientException', 'Invalid API Key format: Must start with pre-defined prefix');
    return;
  }
  const auth = parseAuthorization(header);
  if (!auth) refuse(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const { accessKeyId, day, region, service, signedHeaders, signature } = auth!;
  const known = (options.credentials ?? []).find((c) => c.accessKeyId === accessKeyId);
  if (!known) refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (known!.sessionToken && req.headers['x-amz-security-token'] !== known!.sessionToken) refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  if (known!.expiration && known!.expiration.getTime() <= Date.now()) refuse(403, 'ExpiredTokenException', 'The security token included in the request is expired');
  if (region !== options.region) refuse(403, 'InvalidSignatureException', `Credential should be scoped to a valid region. (got ${region}, this endpoint is ${options.region})`);
  if (service !== 'bedrock') refuse(403, 'InvalidSignatureException', `Credential should be scoped to correct service: 'bedrock'.`);
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const at = amzDateMs(amzDate);
  if (!Number.isFinite(at) || amzDate.slice(0, 8) !== day) refuse(403, 'InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP');
  if (Math.abs(Date.now() + (options.clockSkewMs ?? 0) - at) > 5 * 60_000) refuse(403, 'InvalidSignatureException', `Signature expired: ${amzDate} is now earlier than the allowed window (5 min).`);
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) refuse(403, 'InvalidSignatureException', 'host and x-amz-date must be signed.');
  const [path, query = ''] = (req.url ?? '/').split('?');
  const expected = computeSignature({ method: req.method ?? 'POST', path, query, headers: req.headers, signedHeaders, payloadHash: payloadHashOf(body), amzDate, region, service, secretAccessKey: known!.secretAccessKey });
  if (!sameSignature(expected, signature)) refuse(403, 'InvalidSignatureException', 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.');
}

export async function startFakeBedrock(options: FakeBedrockOptions): Promise<FakeBedrock> {
  const requests: BedrockRequest[] = [];
  const rejections: string[] = [];
  const faults: FakeBedrockFaults = { throttle: 0, splitEvery: 5 };
  const sockets = new Set<import('node:net').Socket>();

  async function writeStream(res: http.ServerResponse, frames: Buffer[]): Promise<void> {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-req' });
    const corrupt = faults.badCrcAt;
    const exception = faults.exceptionAfter;
    faults.badCrcAt = undefined;
    faults.exceptionAfter = undefined;
    let list = frames;
    if (exception) list = [...frames.slice(0, exception.index), exceptionFrame(exception.name, exception.message, exception.fields)];
    if (corrupt !== undefined && list[corrupt]) {
      const bad = Buffer.from(list[corrupt]);
      bad[bad.length - 5] ^= 0xff; // a payload byte: the message CRC no longer matches
      list = [...list.slice(0, corrupt), bad, ...list.slice(corrupt + 1)];
    }
    const bytes = Buffer.concat(list);
    for (let at = 0; at < bytes.length; at += faults.splitEvery) {
      if (res.destroyed) return;
      res.write(bytes.subarray(at, at + faults.splitEvery));
      // Each piece leaves in its own TCP write: the reader must join frames across reads.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString('utf8');
    let json: Json | undefined;
    try {
      json = JSON.parse(body) as Json;
    } catch {
      json = undefined;
    }
    const match = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/.exec((req.url ?? '').split('?')[0]);
    const model = match ? decodeURIComponent(match[1]) : '';
    const action = match?.[2] ?? '';
    requests.push({ method: req.method ?? '', path: req.url ?? '', model, action, headers: req.headers, body, json });
    try {
      if (req.method !== 'POST' || !match) refuse(404, 'UnknownOperationException', `No operation at ${req.url}`);
      checkAuth(req, raw, options);
      if (!json) invalid('The request body is not JSON.');
      if (options.models && !options.models.includes(model)) invalid('The provided model identifier is invalid.');
      if (faults.throttle > 0) {
        faults.throttle -= 1;
        refuse(429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
      }
      if (action.startsWith('invoke')) {
        checkInvoke(model, json!);
        const turn = invokeTurn(json!);
        const wireModel = model.replace(/^(?:[a-z-]+\.)?anthropic\./, '').replace(/-v\d+:\d+$/, '');
        if (action === 'invoke') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(invokeResponse(turn, wireModel)));
          return;
        }
        const frames = invokeEvents(turn, wireModel).map((event) => eventFrame('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abcdefghijklmnopqrstuvwxyzABCDEF' }));
        await writeStream(res, frames);
        return;
      }
      checkConverse(json!);
      const turn = converseTurn(json!);
      const stop = faults.stopReasonNext;
      if (stop && stop.times > 0) {
        stop.times -= 1;
        turn.text = '';
        turn.tools = [];
      }
      const whole = (): Json => (stop ? { ...converseResponse(turn), output: { message: { role: 'assistant', content: [] } }, stopReason: stop.stopReason } : converseResponse(turn));
      if (action === 'converse') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(whole()));
        return;
      }
      const events = stop ? [{ type: 'messageStart', payload: { role: 'assistant' } }, { type: 'messageStop', payload: { stopReason: stop.stopReason } }, converseEvents(turn).at(-1)!] : converseEvents(turn);
      await writeStream(res, events.map((e) => eventFrame(e.type, e.payload)));
    } catch (error) {
      if (!(error instanceof BedrockError)) throw error;
      rejections.push(`${error.type}: ${error.message}`);
      res.writeHead(error.status, { 'content-type': 'application/json', 'x-amzn-errortype': `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'fake-req' });
      res.end(JSON.stringify({ message: error.message }));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    rejections,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
