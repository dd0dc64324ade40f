import type { GoogleOptions } from './options.ts';

/** The Vertex AI host of a location: `global` and the `us`/`eu` multi-regions have their own. */
export function vertexHost(location: string): string {
  if (location === 'global') return 'https://aiplatform.googleapis.com';
  if (location === 'us' || location === 'eu') return `https://aiplatform.${location}.rep.googleapis.com`;
  return `https://${location}-aiplatform.googleapis.com`;
}

/** The origin calls go to: the config's `baseURL` (a proxy, a test double), else Google's host for the API. */
export function upstreamOrigin(options: GoogleOptions, baseURL: string | undefined): string {
  if (baseURL) return baseURL.replace(/\/+$/, '');
  return options.api === 'vertex' ? vertexHost(options.location) : 'https://generativelanguage.googleapis.com';
}

/** A model id as one path segment (`claude-sonnet-4-5@20250929` keeps its `@`). */
function segment(model: string): string {
  return encodeURIComponent(model).replace(/%40/g, '@');
}

function geminiMethod(stream: boolean, sse: boolean): string {
  if (!stream) return 'generateContent';
  return sse ? 'streamGenerateContent?alt=sse' : 'streamGenerateContent';
}

/** Builds the request paths of one provider. */
export interface GooglePaths {
  /** `…/models/{m}:generateContent`, or `:streamGenerateContent` (`?alt=sse` unless a JSON array is asked for). */
  gemini(model: string, stream: boolean, sse?: boolean): string;
  geminiCount(model: string): string;
  /** Vertex only: Claude's `:rawPredict` / `:streamRawPredict`. */
  claude(model: string, stream: boolean): string;
  claudeCount(): string;
  /** Embeddings: `…/models/{m}:batchEmbedContents` (AI Studio) or `…/models/{m}:predict` (Vertex). */
  embed(model: string): string;
  /** Imagen: `…/models/{m}:predict`. */
  imagenPredict(model: string): string;
  /** Veo: `…/models/{m}:predictLongRunning`. */
  veoSubmit(model: string): string;
  /** Veo: the operation's poll, `GET /v1beta/{operation}` (AI Studio) or `POST …/models/{m}:fetchPredictOperation` (Vertex). */
  veoOperation(model: string, operation?: string): string;
}

/** An operation name Google gave (`models/veo-3.1-generate-preview/operations/abc123`), checked before it goes into a path. */
function operationPath(operation: string | undefined): string {
  if (!operation || !/^[A-Za-z0-9][A-Za-z0-9._@/-]*$/.test(operation) || operation.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`not an operation name: '${String(operation).slice(0, 80)}'`);
  }
  return operation;
}

/** The paths for AI Studio (`/v1beta/models/…`) or for Vertex (`/v1/projects/{p}/locations/{l}/publishers/…`). */
export function googlePaths(options: GoogleOptions, project: string | undefined): GooglePaths {
  if (options.api === 'gemini') {
    const base = `/${options.apiVersion ?? 'v1beta'}/models`;
    const noClaude = (): never => {
      throw new Error('Claude is served through Vertex AI only');
    };
    return {
      gemini: (model, stream, sse = true) => `${base}/${segment(model)}:${geminiMethod(stream, sse)}`,
      geminiCount: (model) => `${base}/${segment(model)}:countTokens`,
      claude: noClaude,
      claudeCount: noClaude,
      embed: (model) => `${base}/${segment(model)}:batchEmbedContents`,
      imagenPredict: (model) => `${base}/${segment(model)}:predict`,
      veoSubmit: (model) => `${base}/${segment(model)}:predictLongRunning`,
      veoOperation: (_model, operation) => `/${options.apiVersion ?? 'v1beta'}/${operationPath(operation)}`,
    };
  }
  const base = `/${options.apiVersion ?? 'v1'}/projects/${project ?? '-'}/locations/${options.location}/publishers`;
  return {
    gemini: (model, stream, sse = true) => `${base}/google/models/${segment(model)}:${geminiMethod(stream, sse)}`,
    geminiCount: (model) => `${base}/google/models/${segment(model)}:countTokens`,
    claude: (model, stream) => `${base}/anthropic/models/${segment(model)}:${stream ? 'streamRawPredict' : 'rawPredict'}`,
    claudeCount: () => `${base}/anthropic/models/count-tokens:rawPredict`,
    embed: (model) => `${base}/google/models/${segment(model)}:predict`,
    imagenPredict: (model) => `${base}/google/models/${segment(model)}:predict`,
    veoSubmit: (model) => `${base}/google/models/${segment(model)}:predictLongRunning`,
    veoOperation: (model) => `${base}/google/models/${segment(model)}:fetchPredictOperation`,
  };
}
