/** The wire formats: each folder is one format's whole face; the registry is where the core reads them. */
export { defineFormat } from './define-format.ts';
export {
  registerFormat,
  unregisterFormat,
  getFormat,
  findFormat,
  getCodec,
  framingOf,
  listFormats,
  wireFormatIds,
  formatOfRoute,
  formatOfPath,
  batchEndpoints,
  type BuiltinFormat,
} from './registry.ts';
export { sseFraming, jsonArrayFraming, isWebSearchType, MEDIA_TOKENS } from './shared/index.ts';
export type {
  FormatDefinition,
  FormatRoute,
  RouteTarget,
  CountTokensFace,
  ListedModel,
  ModelListFace,
  CredentialSource,
  StreamFraming,
  FrameReader,
  FrameWriter,
  WireRecord,
  RecordEnd,
  PassthroughRules,
  RequestFacts,
  InboundBody,
  VendorTools,
  VendorToolsFace,
  ConvertedFit,
  PassthroughRequest,
  RewriteContext,
  FormatCodec,
  EncodeRequestOptions,
  StreamDecoder,
  StreamEncoder,
  DecodedUpstreamError,
  PassthroughInfo,
  UsageTap,
} from './types.ts';
export { prependHistory, responseToHistory, storedItemPlace } from './responses/index.ts';
export { FieldChecker, collectExtra, firstSignificant, isRecord, looksLikeObject } from './shared/index.ts';
