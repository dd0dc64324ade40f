/** One exchange, from a transport-free call to a settled answer: the HTTP routes, batch lines and native batches hand theirs here. */
export { runExchange } from './run-exchange.ts';
export { runMediaExchange, type MediaCall, type MediaAnswer, type MediaUnits, type MediaSettlement } from './run-media-exchange.ts';
export { admitCall, type AdmittedFacts } from './admit-call.ts';
export { decodeCall, encodeCall, readCall, type CallBody, type EncodedCall } from './call-exchange.ts';
export { storedResponseNotFound, mintResponseId, checkResponsesQuota } from './stored-responses.ts';
export {
  CONVERSATION_LIMITS,
  conversationBounds,
  conversationFull,
  conversationNotFound,
  conversationView,
  mintConversationId,
  readConversationItems,
  readConversationMetadata,
  renamedItem,
  withConversationHistory,
} from './conversations.ts';
export type { ExchangeAnswer, ExchangeCall, ExchangeDeps } from './types.ts';
export { inlineStoredFiles, namesGatewayFiles, storedFilesOf, type InlinedBody } from './inline-stored-files.ts';
