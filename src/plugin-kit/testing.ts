/**
 * The provider conformance suite (`gateway/plugin-kit/testing`): what the host relies on from
 * every provider plugin, as cases a plugin author runs in any test runner against their own
 * plugin and their own fake upstream. The built-in plugins run it in the gateway's tests.
 * `formatCases` is the same for a wire format a plugin brings (format-cases.ts).
 *
 *   import { formatCases, providerCases } from 'gateway/plugin-kit/testing';
 *   for (const c of providerCases(plugin, { baseURL: fake.url, apiKey: 'k', model: 'm' })) test(c.name, c.run);
 *   for (const c of formatCases(myFormat)) test(c.name, c.run);
 */
import { findFormat, getFormat, registerFormat, type FormatDefinition } from '../formats/index.ts';
import { isGatewayError } from '../errors/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import { DEFAULT_TIMEOUTS, readBody, UndiciHttpFactory, UpstreamHttpError, isUpstreamHttpError } from '../upstream/index.ts';
import { describeShapeProblem, pluginShapeProblem } from './plugin-shape.ts';
import type { ChatCall, ProviderContext, ProviderInstance, ProviderPlugin, UpstreamResponse } from './types.ts';

export { formatCases, type FormatCase } from './format-cases.ts';

/** What the suite needs to set the plugin up and call it. */
export interface ProviderSuiteOptions {
  /** The upstream the plugin talks to in the test (your fake); absent for an offline plugin. */
  baseURL?: string;
  apiKey?: string;
  /** Plugin options, as a config entry would give them (parsed by the plugin's `options`). */
  options?: Record<string, unknown>;
  /** The upstream model id to call chat with, in every declared format. */
  model: string;
  /** Formats to call chat with (default: every format the plugin declares). */
  formats?: WireFormat[];
  /** Also call with `stream: true` (default true). */
  stream?: boolean;
  /** A model id your upstream answers with an error (4xx/5xx): checks the error convention. */
  failingModel?: string;
  /** Calls end within this (default 10 s). */
  timeoutMs?: number;
}

/** One check: a name for your test runner and a function that throws when the plugin fails it. */
export interface ProviderCase {
  name: string;
  run(): Promise<void>;
}

/** The connection error behind a refusal that no upstream gave (nothing listening, no such host). */
function unreachedCode(error: unknown): string | undefined {
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code) ? code : undefined;
}

function fail(message: string): never {
  throw new Error(`provider conformance: ${message}`);
}

/** What the host checks when it loads a plugin, and the formats it may be called with. */
function checkShape(plugin: ProviderPlugin<unknown>): WireFormat[] {
  const problem = pluginShapeProblem(plugin);
  if (problem) fail(`not a plugin the host loads ${describeShapeProblem(problem)}`);
  for (const format of plugin.wireFormats ?? []) if (!findFormat(format.id)) registerFormat(format as FormatDefinition);
  const supported = plugin.supportedFormats ?? plugin.formats;
  for (const format of supported) if (!findFormat(format)) fail(`declares format '${format}', which is neither built in nor in its \`wireFormats\``);
  return supported;
}

function contextOf(plugin: ProviderPlugin<unknown>, options: ProviderSuiteOptions, http: UndiciHttpFactory): ProviderContext<unknown> {
  const quiet = { info: () => undefined, warn: () => undefined };
  const parsed = plugin.options ? plugin.options.parse(options.options ?? {}) : (options.options ?? {});
  return { id: plugin.name, baseURL: options.baseURL, apiKey: options.apiKey, headers: {}, timeouts: DEFAULT_TIMEOUTS, options: parsed, http, log: quiet };
}

/** A one-line question in `format`, encoded by the format's own codec as the host would. */
function callIn(format: WireFormat, model: string, stream: boolean, signal: AbortSignal): ChatCall {
  const request: ChatRequest = { model, system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }], stream, maxTokens: 64 };
  const body = getFormat(format).codec.encodeRequest(request, { upstreamModel: model, defaultMaxTokens: 64 });
  return { format, model, stream, headers: {}, body, rawBody: JSON.stringify(body), signal };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`provider conformance: ${what} did not end within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A 2xx answer the format's codec reads: a response body, or a stream whose last record is terminal. */
async function checkAnswer(format: WireFormat, stream: boolean, response: UpstreamResponse): Promise<void> {
  const bytes = await readBody(response.body);
  if (response.status < 200 || response.status >= 300) fail(`chat in '${format}' answered ${response.status}: ${bytes.toString('utf8').slice(0, 200)}`);
  const definition = getFormat(format);
  if (!stream) {
    const decoded = definition.codec.decodeResponse(JSON.parse(bytes.toString('utf8')));
    if (!Array.isArray(decoded.content)) fail(`the '${format}' answer does not decode to a response`);
    return;
  }
  const reader = getFormat(format).framing.createReader();
  reader.push(bytes);
  const records = [...reader.records, ...reader.end()];
  const decoder = definition.codec.createStreamDecoder();
  for (const record of records) decoder.push(record);
  decoder.end();
  if (records.length === 0 || definition.terminal(records.at(-1)!) === undefined) fail(`the '${format}' stream does not end with a terminal record (cut short, or framed for another format)`);
}

/** The conformance cases for one plugin: shape, set-up, chat in every declared format (JSON and streamed), errors, abort, close. */
export function providerCases(plugin: ProviderPlugin<unknown>, options: ProviderSuiteOptions): ProviderCase[] {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let formats: WireFormat[] = [];
  const setUp = async <T>(use: (instance: ProviderInstance) => Promise<T>): Promise<T> => {
    // A shape the host refuses fails every case in the shape case's words, not with a TypeError from a missing setup.
    checkShape(plugin);
    const http = new UndiciHttpFactory(DEFAULT_TIMEOUTS, {}, plugin.name);
    const instance = await plugin.setup(contextOf(plugin, options, http));
    try {
      return await use(instance);
    } finally {
      await instance.close?.();
      await http.closeAll();
    }
  };
  const cases: ProviderCase[] = [
    {
      name: 'has the shape the host loads (name, formats it can be called with, setup, model types)',
      run: async () => {
        formats = checkShape(plugin);
      },
    },
    {
      name: 'sets up from a context and closes',
      run: () => setUp(async (instance) => {
        if (typeof instance !== 'object' || instance === null) fail('`setup` returned no instance');
        if (plugin.formats.length > 0 && typeof instance.chat !== 'function') fail('declares chat formats but its instance has no `chat`');
      }),
    },
  ];
  // Listed before the shape case runs: a default export that is no plugin object still gets its cases (which fail in the shape's words).
  const own = (typeof plugin === 'object' && plugin !== null ? plugin : {}) as Partial<ProviderPlugin<unknown>>;
  const declared = options.formats ?? [own.supportedFormats, own.formats].find((formats) => Array.isArray(formats)) ?? [];
  for (const format of declared) {
    for (const stream of options.stream === false ? [false] : [false, true]) {
      cases.push({
        name: `answers chat in '${format}', ${stream ? 'streamed' : 'JSON'}, in a body the format reads`,
        run: () =>
          setUp(async (instance) => {
            if (formats.length === 0) formats = checkShape(plugin);
            if (!formats.includes(format)) fail(`'${format}' is not among the formats it declared`);
            const response = await withTimeout(instance.chat!(callIn(format, options.model, stream, AbortSignal.timeout(timeoutMs))), timeoutMs, 'chat');
            await withTimeout(checkAnswer(format, stream, response), timeoutMs, 'the answer');
          }),
      });
    }
  }
  cases.push({
    name: 'keeps its request patch to the typed shape ({ set?, remove? } or undefined)',
    run: () =>
      setUp(async (instance) => {
        if (!instance.patchRequest) return;
        for (const format of declared) {
          const call = callIn(format, options.model, false, AbortSignal.timeout(timeoutMs));
          const patch = instance.patchRequest({ purpose: 'chat', format, model: call.model, stream: false, body: call.body }) as unknown;
          if (patch === undefined) continue;
          const { set, remove } = (patch ?? {}) as { set?: unknown; remove?: unknown };
          if (typeof patch !== 'object' || (set !== undefined && (typeof set !== 'object' || set === null)) || (remove !== undefined && !Array.isArray(remove))) fail(`patchRequest returned ${JSON.stringify(patch)}`);
        }
      }),
  });
  if (options.failingModel !== undefined) {
    const failing = options.failingModel;
    cases.push({
      name: 'reports an upstream error by the one convention (a non-2xx answer, UpstreamHttpError or GatewayError)',
      run: () =>
        setUp(async (instance) => {
          const format = declared[0];
          try {
            const response = await withTimeout(instance.chat!(callIn(format, failing, false, AbortSignal.timeout(timeoutMs))), timeoutMs, 'chat');
            await readBody(response.body).catch(() => undefined);
            if (response.status >= 200 && response.status < 300) fail(`chat with '${failing}' answered ${response.status}; the fake upstream was to refuse it`);
          } catch (error) {
            if (!isUpstreamHttpError(error) && !isGatewayError(error)) fail(`chat threw ${String(error)}: throw UpstreamHttpError or GatewayError (or return the non-2xx answer), else the client gets a transport error`);
            const unreached = unreachedCode(error);
            if (unreached) fail(`chat with '${failing}' never reached an upstream (${unreached} at ${options.baseURL ?? 'no baseURL'}): the case needs your fake upstream running there, refusing that model`);
          }
        }),
    });
  }
  if (declared.length > 0) {
    cases.push({
      name: 'gives up a call whose signal is already aborted (rejects, or ends its stream short)',
      run: () =>
        setUp(async (instance) => {
          const controller = new AbortController();
          controller.abort(new Error('client gone'));
          const format = declared[0];
          const answered = await withTimeout(
            (async () => {
              const response = await instance.chat!(callIn(format, options.model, true, controller.signal));
              const reader = getFormat(format).framing.createReader();
              reader.push(await readBody(response.body));
              const last = [...reader.records, ...reader.end()].at(-1);
              return last !== undefined && getFormat(format).terminal(last) !== undefined;
            })().catch(() => false),
            timeoutMs,
            'an aborted chat',
          );
          if (answered) fail('chat with an aborted signal streamed a whole answer anyway: pass the call (`abortOn: call`) or its signal to the HTTP client');
        }),
    });
  }
  return cases;
}
