// A whole Converse response ↔ IR. Converse answers carry no id and no model: the decoder makes
// an id, and the model is the one the request named.
import { FailedAnswerError, GatewayError, type ChatRequest, type ChatResponse } from 'gateway/plugin-kit';
import { decodeConverseContent, encodeConversePart } from './map-content.ts';
import { decodeConverseStopReason, encodeConverseStopReason, malformedStopMessage } from './map-stop-reason.ts';
import { decodeConverseUsage, encodeConverseUsage } from './map-usage.ts';
import { recordOf, responseId } from './json.ts';

export function decodeConverseResponse(body: unknown): ChatResponse {
  const b = recordOf(body);
  const message = recordOf(recordOf(b.output).message);
  const malformed = malformedStopMessage(b.stopReason);
  if (malformed !== undefined) {
    // No answer in it (malformedStopMessage): the upstream's error, what it used billed.
    const usage = decodeConverseUsage(b.usage);
    const options = { details: { upstream_code: b.stopReason } };
    throw usage ? new FailedAnswerError('provider_error', malformed, options, usage) : new GatewayError('provider_error', malformed, options);
  }
  return {
    id: responseId(),
    model: '',
    created: Math.floor(Date.now() / 1000),
    content: decodeConverseContent(message.content ?? [], 'output.message.content'),
    finishReason: decodeConverseStopReason(b.stopReason),
    usage: decodeConverseUsage(b.usage) ?? { inputTokens: 0, outputTokens: 0 },
  };
}

export function encodeConverseResponse(response: ChatResponse, _request: ChatRequest): Record<string, unknown> {
  return {
    output: { message: { role: 'assistant', content: response.content.flatMap(encodeConversePart) } },
    stopReason: encodeConverseStopReason(response.finishReason, response.stopSequence),
    usage: encodeConverseUsage(response.usage),
    metrics: { latencyMs: 0 },
  };
}
