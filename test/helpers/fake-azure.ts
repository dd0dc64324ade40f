/**
 * A strict fake of Azure OpenAI (and of its Microsoft Entra token endpoint), checking what the
 * real service checks: the GA v1 path (`/openai/v1/…`, the deployment as `model`, no
 * api-version or `preview`) or the deployments path (`/openai/deployments/{d}/…` and
 * `/openai/responses`, a required, known `api-version`: missing is Azure's 404 "Resource not
 * found"); an `api-key` header or an Entra bearer token this fake issued and that has not
 * expired (on the v1 path also `Authorization: Bearer <key>`); a known deployment (404 `DeploymentNotFound`); and every body check of the strict
 * OpenAI fakes (test/helpers/strict-fakes.ts). Answers carry Azure's content-filter
 * annotations (`prompt_filter_results` in a first chunk with no choices,
 * `content_filter_results` per choice). On demand, from a marker in the request:
 * `FILTER_PROMPT` → 400 `content_filter` with `innererror.content_filter_result`;
 * `FILTER_OUTPUT` → the answer cut with finish_reason `content_filter` (Responses: incomplete);
 * `THROTTLE` → 429 with `retry-after`.
 *
 * The token endpoint is HTTPS (MSAL refuses any other authority), with the certificate in
 * test/fixtures/tls/: a gateway trusts it through `NODE_EXTRA_CA_CERTS` (see `entraEnv`).
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from './fake-upstream.ts';
import { createStrictHandler, type StrictFakeOptions, type StrictHandler, type StrictModel } from './strict-fakes.ts';

type Json = Record<string, any>;

const TLS_DIR = path.resolve(import.meta.dirname, '../fixtures/tls');
export const FAKE_ENTRA_CA = path.join(TLS_DIR, 'fake-entra.crt');
/** The environment a gateway needs to reach the fake token endpoint over TLS. */
export const entraEnv = { NODE_EXTRA_CA_CERTS: FAKE_ENTRA_CA };

/** api-versions this fake knows (the deployments path); Responses needs a preview from 2025-03-01 on. */
const API_VERSIONS = new Set(['2024-02-01', '2024-06-01', '2024-10-21', '2025-03-01-preview', '2025-04-01-preview']);
const RESPONSES_VERSIONS = new Set(['2025-03-01-preview', '2025-04-01-preview']);
const V1_VERSIONS = new Set(['preview', 'latest']);
const SCOPE = 'https://cognitiveservices.azure.com/.default';

const OPERATIONS = ['chat/completions', 'responses', 'embeddings', 'images/generations', 'audio/speech', 'audio/transcriptions', 'audio/translations'] as const;
type Operation = (typeof OPERATIONS)[number];

export interface FakeAzureDeployment extends StrictModel {
  /** The model behind the deployment (reported in answers). */
  model: string;
}

export interface FakeAzureOptions {
  /** Deployments by name. */
  deployments: Record<string, FakeAzureDeployment>;
  /** The accepted `api-key` (absent: keys are refused). */
  apiKey?: string;
  /** Entra app registration accepted by the token endpoint (absent: no token endpoint). */
  entra?: { tenantId: string; clientId: string; clientSecret: string; expiresInSeconds: number };
  pick?: StrictFakeOptions['pick'];
  finalText?: string;
}

export interface FakeAzure extends FakeUpstream {
  /** `https://127.0.0.1:<port>`, the Entra authority host (when `entra` was given). */
  entraUrl?: string;
  /** Token requests the Entra endpoint answered with a token. */
  tokensIssued: number;
  /** Every token request, with the form it carried. */
  tokenRequests: Array<Record<string, string>>;
  /** Body-check refusals (a test asserts there were none). */
  rejections: string[];
}

const SAFE = { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };
const PROMPT_FILTER = [{ prompt_index: 0, content_filter_results: { ...SAFE, jailbreak: { filtered: false, detected: false } } }];
const FILTERED = { ...SAFE, violence: { filtered: true, severity: 'medium' } };

const azureError = (status: number, code: string, message: string, headers?: Record<string, string>): FakeReply => ({ status, headers, json: { error: { code, message } } });

const NOT_FOUND = azureError(404, '404', 'Resource not found');
const BAD_KEY = azureError(401, '401', 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.');
const NO_DEPLOYMENT = azureError(404, 'DeploymentNotFound', 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.');

function promptFiltered(): FakeReply {
  return {
    status: 400,
    json: {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { ...FILTERED, jailbreak: { filtered: false, detected: false } } },
      },
    },
  };
}

function throttled(operation: string, version: string): FakeReply {
  return azureError(429, '429', `Requests to the ${operation} Operation under Azure OpenAI API version ${version} have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 1 second.`, { 'retry-after': '1', 'x-ratelimit-remaining-requests': '0' });
}

/** Where a request goes: the operation, the deployment in the path (deployments path), the api-version. */
function routeOf(rawPath: string): { operation: Operation; deployment?: string; v1: boolean; version: string | null } | undefined {
  const url = new URL(rawPath, 'http://fake');
  const version = url.searchParams.get('api-version');
  const v1 = /^\/openai\/v1\/(.+)$/.exec(url.pathname);
  if (v1 && (OPERATIONS as readonly string[]).includes(v1[1])) return { operation: v1[1] as Operation, v1: true, version };
  if (url.pathname === '/openai/responses') return { operation: 'responses', v1: false, version };
  const dep = /^\/openai\/deployments\/([^/]+)\/(.+)$/.exec(url.pathname);
  if (dep && (OPERATIONS as readonly string[]).includes(dep[2]) && dep[2] !== 'responses') return { operation: dep[2] as Operation, deployment: decodeURIComponent(dep[1]), v1: false, version };
  return undefined;
}

/** A multipart form field's value (the fake reads `model` from transcription uploads). */
function formField(body: string, name: string): string | undefined {
  return new RegExp(`name="${name}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(body)?.[1];
}

/** Adds Azure's annotations to a Chat answer: `prompt_filter_results`, `content_filter_results` per choice. */
function annotateChat(reply: FakeReply): FakeReply {
  if ('json' in reply && reply.status === undefined) {
    const json = reply.json as Json;
    return { ...reply, json: { ...json, choices: json.choices.map((c: Json) => ({ ...c, content_filter_results: SAFE })), prompt_filter_results: PROMPT_FILTER } };
  }
  if (!('sse' in reply)) return reply;
  const first = `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER })}\n\n`;
  const pieces = reply.sse.map((piece) => {
    if (!piece.startsWith('data: {')) return piece;
    const chunk = JSON.parse(piece.slice(6)) as Json;
    chunk.choices = chunk.choices.map((c: Json) => (c.delta?.content || c.finish_reason ? { ...c, content_filter_results: SAFE } : c));
    return `data: ${JSON.stringify(chunk)}\n\n`;
  });
  return { ...reply, sse: [first, ...pieces] };
}

/** A Chat answer cut by the output filter, whole or streamed. */
function outputFilteredChat(body: Json, model: string): FakeReply {
  const base = { id: 'chatcmpl-filtered', created: 1_700_000_000, model };
  const usage = { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 };
  if (!body.stream) {
    return { json: { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Here is how' }, finish_reason: 'content_filter', logprobs: null, content_filter_results: FILTERED }], usage, prompt_filter_results: PROMPT_FILTER } };
  }
  const chunk = (choice: Json) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, logprobs: null, finish_reason: null, ...choice }] });
  const chunks: Json[] = [
    { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER },
    chunk({ delta: { role: 'assistant', content: '' } }),
    chunk({ delta: { content: 'Here is how' }, content_filter_results: SAFE }),
    chunk({ delta: {}, finish_reason: 'content_filter', content_filter_results: FILTERED }),
  ];
  if (body.stream_options?.include_usage) chunks.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  return { sse: [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'] };
}

/** A Responses answer cut by the output filter: `incomplete`, reason `content_filter`. */
function outputFilteredResponses(body: Json, model: string): FakeReply {
  const message = { id: 'msg_filtered', type: 'message', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'Here is how', annotations: [] }] };
  const response = { id: 'resp_filtered', object: 'response', created_at: 1_700_000_000, status: 'incomplete', incomplete_details: { reason: 'content_filter' }, model, output: [message], usage: { input_tokens: 30, output_tokens: 4, total_tokens: 34 }, error: null };
  if (!body.stream) return { json: response };
  let seq = 0;
  const events: Json[] = [
    { type: 'response.created', response: { ...response, status: 'in_progress', incomplete_details: null, output: [], usage: null } },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', output_index: 0, item_id: message.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', output_index: 0, item_id: message.id, content_index: 0, delta: 'Here is how' },
    { type: 'response.incomplete', response },
  ];
  return { sse: events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: seq++ })}\n\n`) };
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Starts the fake resource on 127.0.0.1 (and its Entra endpoint, when asked). */
export async function startFakeAzure(options: FakeAzureOptions): Promise<FakeAzure> {
  const models = Object.fromEntries(Object.entries(options.deployments).map(([name, d]) => [name, { maxOutput: d.maxOutput, reasoning: d.reasoning, id: d.model }]));
  const strict: Record<'chat' | 'responses', StrictHandler> = {
    chat: createStrictHandler({ format: 'chat', models, pick: options.pick, finalText: options.finalText }),
    responses: createStrictHandler({ format: 'responses', models, pick: options.pick, finalText: options.finalText }),
  };
  const tokens = new Map<string, number>();
  const entra = options.entra ? await startFakeEntra(options.entra, tokens) : undefined;

  /** An `api-key`, or a bearer: a token this fake issued, or on the v1 path the key itself (what the stock OpenAI client sends). */
  const authorized = (request: ReceivedRequest, v1: boolean): boolean => {
    const key = request.headers['api-key'];
    if (key !== undefined) return options.apiKey !== undefined && key === options.apiKey;
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
    if (v1 && bearer !== undefined && bearer === options.apiKey) return true;
    const expires = bearer === undefined ? undefined : tokens.get(bearer);
    return expires !== undefined && expires > Date.now();
  };

  const handle = (request: ReceivedRequest): FakeReply => {
    const route = routeOf(request.path);
    if (!route || request.method !== 'POST') return NOT_FOUND;
    if (route.v1) {
      if (route.version !== null && !V1_VERSIONS.has(route.version)) return azureError(400, 'BadRequest', 'API version not supported');
    } else {
      if (route.version === null) return NOT_FOUND; // what Azure answers without an api-version
      if (!API_VERSIONS.has(route.version) || (route.operation === 'responses' && !RESPONSES_VERSIONS.has(route.version))) return azureError(400, 'BadRequest', 'API version not supported');
    }
    if (!authorized(request, route.v1)) return BAD_KEY;
    const json = request.json;
    const deployment = route.deployment ?? (json ? json.model : formField(request.body, 'model'));
    if (typeof deployment !== 'string' || !options.deployments[deployment]) return NO_DEPLOYMENT;
    const model = options.deployments[deployment].model;
    const text = request.body;
    if (text.includes('THROTTLE')) return throttled(route.operation === 'responses' ? 'Responses_Create' : 'ChatCompletions_Create', route.version ?? 'v1');
    if (text.includes('FILTER_PROMPT')) return promptFiltered();
    const body: Json = { ...json, model: deployment };
    switch (route.operation) {
      case 'chat/completions':
        if (text.includes('FILTER_OUTPUT')) return outputFilteredChat(body, model);
        return annotateChat(strict.chat.handle(request, body));
      case 'responses':
        if (text.includes('FILTER_OUTPUT')) return outputFilteredResponses(body, model);
        return strict.responses.handle(request, body);
      case 'embeddings': {
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        return { json: { object: 'list', model, data: input.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3] })), usage: { prompt_tokens: 8 * input.length, total_tokens: 8 * input.length } } };
      }
      case 'images/generations':
        if (typeof body.prompt !== 'string') return azureError(400, 'BadRequest', "'prompt' is a required property");
        // gpt-image models always answer b64_json and refuse the parameter, whatever the deployment is called.
        if (/^gpt-image/.test(model) && body.response_format !== undefined) return { status: 400, json: { error: { message: "Unknown parameter: 'response_format'.", type: 'invalid_request_error', param: 'response_format', code: 'unknown_parameter' } } };
        return { json: { created: 1_700_000_000, data: [{ b64_json: PNG.toString('base64'), revised_prompt: body.prompt, content_filter_results: SAFE, prompt_filter_results: PROMPT_FILTER[0].content_filter_results }] } };
      case 'audio/speech':
        return { headers: { 'content-type': 'audio/mpeg' }, text: 'ID3-fake-mp3' };
      default:
        return { json: { text: 'hello from the fake transcription' } };
    }
  };

  const fake = await startFakeUpstream((request) => handle(request));
  const closeServer = fake.close;
  return Object.defineProperties(fake as FakeAzure, {
    entraUrl: { value: entra?.url },
    tokensIssued: { get: () => entra?.issued ?? 0 },
    tokenRequests: { value: entra?.requests ?? [] },
    rejections: { get: () => [...strict.chat.rejections, ...strict.responses.rejections] },
    close: { value: () => Promise.all([closeServer(), entra?.close()]).then(() => undefined) },
  });
}

interface FakeEntra {
  url: string;
  issued: number;
  requests: Array<Record<string, string>>;
  close(): Promise<void>;
}

/** `POST /{tenant}/oauth2/v2.0/token` (client credentials) over HTTPS; issued tokens go into `tokens` with their expiry. */
async function startFakeEntra(app: NonNullable<FakeAzureOptions['entra']>, tokens: Map<string, number>): Promise<FakeEntra> {
  const state: FakeEntra = { url: '', issued: 0, requests: [], close: async () => undefined };
  const server = https.createServer({ key: fs.readFileSync(path.join(TLS_DIR, 'fake-entra.key')), cert: fs.readFileSync(FAKE_ENTRA_CA) }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    state.requests.push({ ...form, url: req.url ?? '' });
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(json));
    };
    const aad = (status: number, error: string, description: string) => send(status, { error, error_description: description, error_codes: [Number(/AADSTS(\d+)/.exec(description)?.[1] ?? 0)], timestamp: new Date().toISOString() });
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'https://fake').pathname !== `/${app.tenantId}/oauth2/v2.0/token`) return aad(400, 'invalid_request', `AADSTS90002: Tenant '${req.url?.split('/')[1]}' not found.`);
    if (form.grant_type !== 'client_credentials') return aad(400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
    if (form.client_id !== app.clientId) return aad(400, 'unauthorized_client', `AADSTS700016: Application with identifier '${form.client_id}' was not found in the directory.`);
    if (form.client_secret !== app.clientSecret) return aad(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    if (form.scope !== SCOPE) return aad(400, 'invalid_scope', `AADSTS1002012: The provided value for scope ${form.scope} is not valid.`);
    const token = `eyJ0eXAi.${randomBytes(24).toString('base64url')}`;
    tokens.set(token, Date.now() + app.expiresInSeconds * 1000);
    state.issued += 1;
    send(200, { token_type: 'Bearer', expires_in: app.expiresInSeconds, ext_expires_in: app.expiresInSeconds, access_token: token });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
