import type { RouteTarget } from '../types.ts';

/**
 * Claude on Vertex AI, what `@anthropic-ai/vertex-sdk` (and Claude Code with `CLAUDE_CODE_USE_VERTEX`)
 * asks with its base URL at the gateway: `/v1/projects/{p}/locations/{l}/publishers/anthropic/models/{model}:rawPredict`
 * (`:streamRawPredict` streams). `count-tokens` in the model's place is the token count. The SDK
 * writes the path after whatever its base URL holds: the gateway's root (no `/v1`) is served too.
 */
const VERTEX = /^(?:\/v1|\/v1beta1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/(.+):(rawPredict|streamRawPredict)$/;
/** Bedrock's InvokeModel (`@anthropic-ai/bedrock-sdk`, Claude Code with `CLAUDE_CODE_USE_BEDROCK`): `/model/{modelId}/invoke[-with-response-stream]`. */
const BEDROCK = /^\/model\/(.+)\/(invoke|invoke-with-response-stream)$/;
/** Bedrock's CountTokens: `/model/{modelId}/count-tokens`. */
const BEDROCK_COUNT = /^\/model\/(.+)\/count-tokens$/;
/** The count model Vertex puts in the path (`…/models/count-tokens:rawPredict`); the body names the model. */
const VERTEX_COUNT = 'count-tokens';

/** The name of the Bedrock event-stream framing in the Messages face's `framings`. */
export const BEDROCK_STREAM = 'bedrock-event-stream';

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** A Vertex id's other spellings: `claude-sonnet-4-5@20250929` → Anthropic's `claude-sonnet-4-5-20250929`, then undated. */
export function vertexModelIds(model: string): string[] {
  const at = /^(.+)@(\d{8})$/.exec(model);
  return at ? [`${at[1]}-${at[2]}`, at[1]] : [];
}

/**
 * A Bedrock id's other spellings, from the most to the least precise: an ARN's resource id
 * (`arn:aws:bedrock:…:inference-profile/us.anthropic.claude-…`), without its geography
 * (`us.`, `eu.`, `global.`…), Anthropic's own id (no `anthropic.`, no `-v1:0`), then undated.
 */
export function bedrockModelIds(model: string): string[] {
  const out: string[] = [];
  const add = (id: string) => {
    if (id !== '' && id !== model && !out.includes(id)) out.push(id);
  };
  let id = model;
  const arn = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:[a-z-]+\/(.+)$/.exec(id);
  if (arn) add((id = arn[1]));
  const geo = /^(?:[a-z]{2,6}(?:-gov)?)\.(anthropic\..+)$/.exec(id);
  if (geo) add((id = geo[1]));
  const vendor = /^anthropic\.(.+?)(?:-v\d+(?::\d+)?)?$/.exec(id);
  if (vendor) add((id = vendor[1]));
  const dated = /^(.+)-\d{8}$/.exec(id);
  if (dated) add(dated[1]);
  return out;
}

/** A Vertex Claude URL → its model and stream flag; undefined for the count URL and any other. */
export function readVertexClaudePath(pathname: string): RouteTarget | undefined {
  const match = VERTEX.exec(pathname);
  const model = match ? decoded(match[1]) : undefined;
  if (!match || !model || model === VERTEX_COUNT) return undefined;
  const target: RouteTarget = { model, stream: match[2] === 'streamRawPredict' };
  const others = vertexModelIds(model);
  if (others.length > 0) target.alsoKnownAs = others;
  return target;
}

/** True for Vertex's Claude token count (`…/publishers/anthropic/models/count-tokens:rawPredict`). */
export function isVertexClaudeCount(pathname: string): boolean {
  const match = VERTEX.exec(pathname);
  return match !== null && match[1] === VERTEX_COUNT && match[2] === 'rawPredict';
}

/** A Bedrock InvokeModel URL → its model (ids and ARNs, URL-encoded or not), stream flag and framing; undefined for any other. */
export function readBedrockPath(pathname: string): RouteTarget | undefined {
  const match = BEDROCK.exec(pathname);
  const model = match ? decoded(match[1]) : undefined;
  if (!match || !model) return undefined;
  const stream = match[2] === 'invoke-with-response-stream';
  const target: RouteTarget = { model, stream };
  if (stream) target.framing = BEDROCK_STREAM;
  const others = bedrockModelIds(model);
  if (others.length > 0) target.alsoKnownAs = others;
  return target;
}

/** A Bedrock CountTokens URL → its model (decoded as InvokeModel's); undefined for any other. */
export function readBedrockCountPath(pathname: string): string | undefined {
  const match = BEDROCK_COUNT.exec(pathname);
  const model = match ? decoded(match[1]) : undefined;
  return model === '' ? undefined : model;
}
