// Amazon Bedrock: Claude through InvokeModel(-WithResponseStream) in the Messages format, every
// other model through Converse (the `bedrock-converse` format this plugin brings). SigV4 with
// the AWS SDK's signer, or a Bedrock API key as a Bearer token (docs/providers.md, Bedrock).
import { definePlugin, GatewayError, type ChatCall, type UpstreamResponse } from 'gateway/plugin-kit';
import { converseFormat } from './converse/index.ts';
import { mapErrorResponse } from './map-error-response.ts';
import { DEFAULT_MODELS, describeBedrockModel } from './models.ts';
import { BEDROCK_OPTION_KEYS, bedrockOptionsSchema, firstRegion, type BedrockOptions } from './options.ts';
import { probeCredentials } from './probe-credentials.ts';
import { resolveIdentity } from './resolve-credentials.ts';
import { createSigner, signingRegionOf } from './sign-request.ts';
import { unwrapInvokeStream } from './unwrap-invoke-stream.ts';

const ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * The Invoke body: the host's patch has taken out `model` and `stream` and put in the version;
 * betas (the config's and the client's `anthropic-beta` header) are appended as the last field,
 * so every other byte stays the client's.
 */
function withBetas(call: ChatCall, betas: readonly string[]): string {
  const fromClient = call.headers['anthropic-beta']?.split(',') ?? [];
  const beta = [...new Set([...betas, ...fromClient].map((b) => b.trim()).filter(Boolean))];
  if (beta.length === 0 || 'anthropic_beta' in call.body) return call.rawBody;
  const end = call.rawBody.lastIndexOf('}');
  const head = call.rawBody.slice(0, end).trimEnd();
  return `${head}${head.endsWith('{') ? '' : ','}"anthropic_beta":${JSON.stringify(beta)}}`;
}

export default definePlugin<BedrockOptions>({
  name: 'bedrock',
  formats: ['bedrock-converse'],
  supportedFormats: ['bedrock-converse', 'messages'],
  wireFormats: [converseFormat],
  models: DEFAULT_MODELS,
  catalog: { provider: 'aws', describe: describeBedrockModel },
  options: { parse: (input) => bedrockOptionsSchema.parse(input ?? {}), keys: BEDROCK_OPTION_KEYS },
  async setup(ctx) {
    const env = process.env;
    // Missing credentials or region are a start-up warning, as for the other plugins: Bedrock then refuses the calls (502 provider_error).
    const identity = await resolveIdentity(ctx.options, ctx.apiKey, env).catch((error: Error) => {
      ctx.log.warn(`bedrock provider '${ctx.id}': ${error.message}`);
      return { auth: { kind: 'none' as const, source: 'none' }, profileRegion: undefined };
    });
    if (identity.auth.kind === 'sigv4') await probeCredentials(identity.auth.credentials, identity.auth.source, (message) => ctx.log.warn(`bedrock provider '${ctx.id}': ${message}`));
    const warn = (message: string) => ctx.log.warn(`bedrock provider '${ctx.id}': ${message}`);
    const sources = [['AWS_REGION', env.AWS_REGION], ['AWS_DEFAULT_REGION', env.AWS_DEFAULT_REGION], ["the profile's region", identity.profileRegion]] as const;
    let region = ctx.options.region ?? firstRegion(sources, warn);
    if (!region) {
      region = 'us-east-1';
      if (!ctx.baseURL) ctx.log.warn(`bedrock provider '${ctx.id}': no region (set \`region\`, AWS_REGION or a profile region); using us-east-1`);
    }
    const endpoint = new URL((ctx.baseURL ?? `https://bedrock-runtime.${region}.amazonaws.com`).replace(/\/+$/, ''));
    // Always the endpoint's own region: a cross-region profile id (eu.…) does not change where the call is signed.
    const signingRegion = signingRegionOf(endpoint, region);
    const auth = identity.auth;
    const sign = auth.kind === 'sigv4' ? createSigner(auth.credentials, signingRegion) : undefined;
    const client = ctx.http.client(endpoint.origin);
    const basePath = endpoint.pathname === '/' ? '' : endpoint.pathname;
    ctx.log.info('bedrock provider ready', { region: signingRegion, auth: auth.kind, source: auth.source });

    async function headersFor(url: URL, body: string, accept: string, extra: Record<string, string>): Promise<Record<string, string>> {
      const headers = { ...ctx.headers, 'content-type': 'application/json', accept, ...extra };
      if (sign) return sign({ url, headers, body });
      return auth.kind === 'bearer' ? { ...headers, authorization: `Bearer ${auth.token}` } : headers;
    }

    async function send(call: ChatCall, action: string, body: string, accept: string, extra: Record<string, string> = {}): Promise<UpstreamResponse> {
      const path = `${basePath}/model/${encodeURIComponent(call.model)}/${action}`;
      const url = new URL(path, endpoint.origin);
      const headers = await headersFor(url, body, accept, extra);
      const response = await client.request({ method: 'POST', path, headers, body, abortOn: call });
      if (response.status < 200 || response.status >= 300) return mapErrorResponse(response, call.format);
      return response;
    }

    async function chat(call: ChatCall): Promise<UpstreamResponse> {
      if (call.format === 'messages') {
        const body = withBetas(call, ctx.options.anthropicBeta ?? []);
        if (!call.stream) return send(call, 'invoke', body, 'application/json');
        const response = await send(call, 'invoke-with-response-stream', body, 'application/vnd.amazon.eventstream', { 'x-amzn-bedrock-accept': 'application/json' });
        if (response.status !== 200) return response;
        return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: unwrapInvokeStream(response.body), abort: response.abort };
      }
      if (call.format !== 'bedrock-converse') throw new GatewayError('internal_error', `The bedrock plugin was called with ${call.format}.`);
      const body = call.rawBody;
      return send(call, call.stream ? 'converse-stream' : 'converse', body, call.stream ? 'application/vnd.amazon.eventstream' : 'application/json');
    }

    return {
      // Bedrock's Messages bodies name the model in the path and the stream in the action.
      patchRequest: ({ format }) => (format === 'messages' ? { remove: ['model', 'stream'], set: { anthropic_version: ANTHROPIC_VERSION } } : undefined),
      chat,
      close: () => client.close(),
    };
  },
});
