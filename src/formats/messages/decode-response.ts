import type { ChatResponse, ContentPart } from '../../ir/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { FieldChecker, isRecord, nowSeconds, readString } from '../shared/index.ts';
import { decodeBlock } from './decode-content.ts';
import { joinWebSearchParts } from './map-web-search.ts';
import { decodeMessagesStopReason } from './map-finish-reason.ts';
import { decodeMessagesUsage } from './map-usage.ts';

/** An upstream Anthropic Messages response → IR. Server tools other than web search, and unknown blocks, are skipped. */
export function decodeMessagesResponse(body: unknown): ChatResponse {
  if (!isRecord(body) || !Array.isArray(body.content)) {
    throw new GatewayError('provider_error', 'The upstream returned an invalid message.');
  }
  // Upstream output is not the client's fault: invalid blocks are skipped, not reported.
  const lenient = new FieldChecker();
  const content: ContentPart[] = [];
  body.content.forEach((block, i) => {
    if (!isRecord(block)) return;
    const part = decodeBlock(block, `content[${i}]`, lenient);
    if (part && !(part.type === 'text' && part.text === '')) content.push(part);
  });
  const response: ChatResponse = {
    id: readString(body, 'id') ?? '',
    model: readString(body, 'model') ?? '',
    created: nowSeconds(),
    content: joinWebSearchParts(content),
    finishReason: decodeMessagesStopReason(body.stop_reason),
    usage: decodeMessagesUsage(body.usage) ?? { inputTokens: 0, outputTokens: 0 },
  };
  const stopSequence = readString(body, 'stop_sequence');
  if (stopSequence !== undefined) response.stopSequence = stopSequence;
  return response;
}
