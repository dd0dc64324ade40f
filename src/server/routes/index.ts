import { cloudOfRoute, listFormats, routesAround, type FormatRoute } from '../../formats/index.ts';
import type { H3Event } from 'h3';
import type { ServerDeps } from '../types.ts';
import { noRoute } from '../hint-base-url.ts';
import type { RouteDef } from './types.ts';
import { health } from './health.ts';
import { countTokensHandler } from './count-tokens.ts';
import { embeddingRoutes, formatEmbeddingsHandler } from './embeddings.ts';
import { inferenceHandler } from './inference.ts';
import { moderationRoutes } from './moderations.ts';
import { formatModelPathRoutes, formatModelRoutes, getModel, listModels } from './models.ts';
import { cancelStoredResponse, compactResponses, deleteStoredResponse, getStoredResponse, listResponsesTools, listStoredInputItems } from './responses.ts';
import { ADMIN_ENDPOINT, adminHandler } from './admin.ts';
import { formatImagesHandler, imageRoutes, makesImages } from './images.ts';
import { audioRoutes } from './audio.ts';
import { mediaLibraryRoutes } from './media-library.ts';
import { tempImageRoutes } from './temp-images.ts';
import { authSessionRoutes } from './auth-session.ts';
import { accountProcedureRoutes } from './account-procedures.ts';
import { usageRoutes } from './usage.ts';
import { metricsRoutes } from './metrics.ts';
import { fileRoutes } from './files.ts';
import { batchRoutes } from './batches.ts';
import { messageBatchRoutes } from './message-batches.ts';
import { geminiBatchRoutes } from './gemini-batches.ts';
import { geminiFileRoutes } from './gemini-files.ts';
import { videoRoutes } from './videos.ts';
import { storedChatCompletionRoutes } from './stored-chat-completions.ts';
import { conversationRoutes } from './conversations.ts';
import { UploadGate } from '../upload-gate.ts';

export type { RouteDef } from './types.ts';

/** Every route of the gateway; modules add theirs here. */
export function buildRoutes(deps: ServerDeps): RouteDef[] {
  const geminiBatches = geminiBatchRoutes(deps);
  // One set of upload bounds for both faces: a Gemini chunk is received to a temp file as a /v1/files upload is.
  const uploads = new UploadGate(deps.config.storage);
  const pathActions: PathAction[] = [{ format: 'gemini', ...geminiBatches.create }];
  return [
    { method: 'GET', path: '/health', handler: health(deps) },
    { method: 'GET', path: '/v1/models', handler: listModels(deps) },
    { method: 'GET', path: '/v1/models/**', handler: getModel(deps) },
    ...formatRoutes(deps, pathActions),
    { method: 'GET', path: '/v1/responses/tools', handler: listResponsesTools(deps), format: 'responses' },
    { method: 'POST', path: '/v1/responses/compact', handler: compactResponses(deps), format: 'responses' },
    { method: 'GET', path: '/v1/responses/:id', handler: getStoredResponse(deps), format: 'responses' },
    { method: 'DELETE', path: '/v1/responses/:id', handler: deleteStoredResponse(deps), format: 'responses' },
    { method: 'GET', path: '/v1/responses/:id/input_items', handler: listStoredInputItems(deps), format: 'responses' },
    { method: 'POST', path: '/v1/responses/:id/cancel', handler: cancelStoredResponse(deps), format: 'responses' },
    ...conversationRoutes(deps),
    ...storedChatCompletionRoutes(deps),
    ...authSessionRoutes(deps),
    ...accountProcedureRoutes(deps),
    ...usageRoutes(deps),
    ...imageRoutes(deps),
    ...embeddingRoutes(deps),
    ...moderationRoutes(deps),
    ...audioRoutes(deps),
    ...mediaLibraryRoutes(deps),
    ...tempImageRoutes(deps),
    ...fileRoutes(deps, uploads),
    ...batchRoutes(deps),
    ...messageBatchRoutes(deps),
    ...geminiBatches.routes,
    ...geminiFileRoutes(deps, uploads),
    ...videoRoutes(deps),
    // A separate admin listener (server.admin.port) serves them instead: createAdminApp.
    ...(deps.config.server.admin?.port === undefined ? adminRoutes(deps) : []),
    ...metricsRoutes(deps),
  ];
}

/** A URL below a format's path-model route that is neither inference nor its face's count or embeddings (Gemini's `…:batchGenerateContent`). */
interface PathAction {
  format: string;
  matches: (pathname: string) => boolean;
  handler: (event: H3Event) => Promise<unknown>;
}

/**
 * Every registered wire format's inbound routes (a plugin's formats too: the registry is read
 * when the app is built): inference, and the token count and model list of its face. A count
 * route on the same pattern as an inference route (Gemini's `…:countTokens` beside
 * `…:generateContent`) is the inference route's fallback for URLs that are not its own; a count
 * that reads its model from the URL is so for every path-model route (Gemini's `/v1beta` and `/v1`).
 */
function formatRoutes(deps: ServerDeps, pathActions: readonly PathAction[]): RouteDef[] {
  const inference = new Map<FormatRoute, (event: H3Event) => Promise<unknown>>();
  return listFormats().flatMap((format) => {
    const count = format.countTokens;
    const counter = count ? countTokensHandler(deps, format, count) : undefined;
    const shared = count !== undefined && format.routes.some((route) => route.path === count.path);
    const countsOn = (route: FormatRoute) => count !== undefined && (route.path === count.path || (route.from === 'path' && count.readPath !== undefined));
    const embeddings = format.embeddings;
    const embedder = embeddings && formatEmbeddingsHandler(deps, format, embeddings);
    const images = format.images;
    const imager = images && formatImagesHandler(deps, format, images);
    // `:predict` is the images face's when its model makes images; else Vertex's is the embeddings face's, AI Studio's no route.
    const imagesOn = (pathname: string, query: URLSearchParams): boolean => {
      const target = images?.readPath(pathname, query);
      return target !== undefined && makesImages(deps, target.model);
    };
    // A path-model route's URLs that are not inference: images, a count, else embeddings, else the count's 404.
    const faceOn = (route: FormatRoute): ((event: H3Event) => Promise<unknown>) | undefined => {
      const counts = countsOn(route) ? counter : undefined;
      if (route.from !== 'path' || (!embedder && !imager)) return counts;
      return (event) => {
        const { pathname, searchParams } = event.url;
        if (imager && imagesOn(pathname, searchParams)) return imager(event);
        if (embedder && (embeddings!.readPath(pathname, searchParams) || !counts)) return embedder(event);
        return counts ? counts(event) : Promise.reject(noRoute(event.req.method, pathname));
      };
    };
    const actions = pathActions.filter((action) => action.format === format.id);
    const ownOn = (route: FormatRoute): ((event: H3Event) => Promise<unknown>) | undefined => {
      const face = faceOn(route);
      if (route.from !== 'path' || actions.length === 0) return face;
      return (event) => {
        const action = actions.find((a) => a.matches(event.url.pathname));
        if (action) return action.handler(event);
        return face ? face(event) : Promise.reject(noRoute(event.req.method, event.url.pathname));
      };
    };
    // A route inside another format's broader pattern: a URL none of its face reads is that route's (Gemini's Vertex paths around Claude's).
    const otherOn = (route: FormatRoute): ((event: H3Event) => Promise<unknown>) | undefined => {
      const own = ownOn(route);
      const around = route.from === 'path' ? routesAround(format, route)[0] : undefined;
      if (!around) return own;
      const reads = (event: H3Event) => {
        const { pathname, searchParams } = event.url;
        return (
          count?.readPath?.(pathname, searchParams) !== undefined ||
          embeddings?.readPath(pathname, searchParams) !== undefined ||
          images?.readPath(pathname, searchParams) !== undefined ||
          actions.some((a) => a.matches(pathname))
        );
      };
      return (event) => (own && reads(event) ? own(event) : inference.get(around)!(event));
    };
    const routes = format.routes.map((route): RouteDef => {
      const handler = inferenceHandler(deps, format.id, route, otherOn(route));
      inference.set(route, handler);
      const def: RouteDef = { method: route.method, path: route.path, handler, format: format.id };
      if (route.from === 'path' && route.broad) def.broad = true;
      return def;
    });
    if (count && counter && !shared) routes.push({ method: 'POST', path: count.path, handler: counter, format: format.id });
    if (count?.wrapped) routes.push({ method: 'POST', path: count.wrapped.path, handler: countTokensHandler(deps, format, count, count.wrapped), format: format.id });
    if (format.models) routes.push(...formatModelRoutes(deps, format, format.models));
    if (format.modelPaths) routes.push(...formatModelPathRoutes(deps, format, format.modelPaths));
    // A route on a cloud's API (Bedrock's InvokeModel and CountTokens) answers as that cloud's SDKs read errors and request ids.
    for (const def of routes) {
      const cloud = cloudOfRoute(format, def.path);
      if (cloud) def.cloud = cloud;
    }
    return routes;
  });
}

/**
 * The admin procedures' routes. On the public listener they answer loopback clients only,
 * unless `server.admin.public`; on a separate admin listener, whoever reaches it.
 */
export function adminRoutes(deps: ServerDeps, where: 'public' | 'admin' = 'public'): RouteDef[] {
  const context = () => ({
    store: deps.store,
    clock: deps.clock,
    config: deps.config,
    dataDir: deps.dataDir,
    registry: async () => deps.registry,
    credits: deps.credits,
    usage: deps.guards.usageSnapshot ? () => deps.guards.usageSnapshot!() : undefined,
    activity: () => deps.observer.activity(),
    jobs: deps.jobs?.ctx,
  });
  const handler = adminHandler(deps, context, { loopbackOnly: where === 'public' && deps.config.server.admin?.public !== true });
  return [
    { method: 'GET', path: `${ADMIN_ENDPOINT}/**`, handler },
    { method: 'POST', path: `${ADMIN_ENDPOINT}/**`, handler },
  ];
}
