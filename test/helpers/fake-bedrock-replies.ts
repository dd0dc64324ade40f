/**
 * What the Bedrock fake answers, as Bedrock's wire has it: Claude via InvokeModel (Messages
 * bodies; streams of `chunk` events carrying base64 Messages events) and Converse (bodies and
 * converse-stream events). The script: with tools offered and no tool result yet, one turn of
 * parallel tool calls (every offered tool, at most two); else text. Thinking asked → a thinking
 * block with a signature first; the next turn must send that signature back byte for byte.
 */
type Json = Record<string, any>;

export const SIGNATURE = 'EqQBCkYIBxgCKkDk+sig/with+slashes==';
export const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4a';
export const USAGE = { input: 21, output: 9, cacheRead: 100, cacheWrite: 50 };

export interface Turn {
  text?: string;
  thinking?: boolean;
  tools: Array<{ id: string; name: string; input: Json }>;
  /** Cache tokens reported (a cache marker was in the request). */
  cache: boolean;
}

function lastUserText(messages: Json[], read: (block: Json) => string | undefined): string {
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const content = Array.isArray(user?.content) ? user.content : [{ type: 'text', text: String(user?.content ?? '') }];
  return content.map(read).filter(Boolean).join(' ');
}

/** Turn for an Invoke (Messages) body. */
export function invokeTurn(body: Json): Turn {
  const messages: Json[] = body.messages ?? [];
  const hasResult = messages.some((m) => Array.isArray(m.content) && m.content.some((b: Json) => b.type === 'tool_result'));
  const tools: Json[] = (body.tools ?? []).slice(0, 2);
  const cache = JSON.stringify(body).includes('"cache_control"');
  const thinking = body.thinking?.type === 'enabled';
  if (tools.length && !hasResult) return { thinking, cache, tools: tools.map((t, i) => ({ id: `toolu_bdrk_${i}`, name: t.name, input: { city: i === 0 ? 'Paris' : 'Rome' } })) };
  const heard = lastUserText(messages, (b) => (b.type === 'text' ? b.text : typeof b === 'string' ? b : b.type === 'image' ? '[image]' : undefined));
  return { thinking, cache, tools: [], text: hasResult ? 'Both cities are sunny.' : `Bedrock Claude heard: ${heard}` };
}

/** Turn for a Converse body. */
export function converseTurn(body: Json): Turn {
  const messages: Json[] = body.messages ?? [];
  const hasResult = messages.some((m) => m.content.some((b: Json) => b.toolResult));
  const tools: Json[] = (body.toolConfig?.tools ?? []).filter((t: Json) => t.toolSpec).slice(0, 2);
  const cache = JSON.stringify(body).includes('"cachePoint"');
  const thinking = body.additionalModelRequestFields?.thinking?.type === 'enabled';
  if (tools.length && !hasResult) return { thinking, cache, tools: tools.map((t, i) => ({ id: `tooluse_bdrk_${i}`, name: t.toolSpec.name, input: { city: i === 0 ? 'Paris' : 'Rome' } })) };
  const heard = lastUserText(messages, (b) => b.text ?? (b.image ? `[image ${b.image.format}]` : undefined));
  return { thinking, cache, tools: [], text: hasResult ? 'Both cities are sunny.' : `Converse heard: ${heard}` };
}

function messagesUsage(turn: Turn): Json {
  return { input_tokens: USAGE.input, output_tokens: USAGE.output, cache_read_input_tokens: turn.cache ? USAGE.cacheRead : 0, cache_creation_input_tokens: turn.cache ? USAGE.cacheWrite : 0 };
}

function converseUsage(turn: Turn): Json {
  const read = turn.cache ? USAGE.cacheRead : 0;
  const write = turn.cache ? USAGE.cacheWrite : 0;
  return { inputTokens: USAGE.input, outputTokens: USAGE.output, totalTokens: USAGE.input + USAGE.output + read + write, ...(turn.cache ? { cacheReadInputTokens: read, cacheWriteInputTokens: write } : {}) };
}

/** A whole Invoke answer (a Messages body). */
export function invokeResponse(turn: Turn, model: string): Json {
  const content: Json[] = [];
  if (turn.thinking) content.push({ type: 'thinking', thinking: 'Let me think.', signature: SIGNATURE }, { type: 'redacted_thinking', data: REDACTED });
  if (turn.text) content.push({ type: 'text', text: turn.text });
  for (const t of turn.tools) content.push({ type: 'tool_use', id: t.id, name: t.name, input: t.input });
  return { id: 'msg_bdrk_01', type: 'message', role: 'assistant', model, content, stop_reason: turn.tools.length ? 'tool_use' : 'end_turn', stop_sequence: null, usage: messagesUsage(turn) };
}

/** The Messages stream events of an Invoke stream, in order. */
export function invokeEvents(turn: Turn, model: string): Json[] {
  const whole = invokeResponse(turn, model);
  const events: Json[] = [{ type: 'message_start', message: { ...whole, content: [], stop_reason: null, usage: { ...whole.usage, output_tokens: 1 } } }];
  whole.content.forEach((block: Json, index: number) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      events.push({ type: 'content_block_start', index, content_block: block });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const word of block.text.split(/(?= )/)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const json = JSON.stringify(block.input);
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, 5) } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(5) } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: whole.stop_reason, stop_sequence: null }, usage: { output_tokens: USAGE.output } });
  events.push({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: USAGE.input, outputTokenCount: USAGE.output, invocationLatency: 120, firstByteLatency: 40 } });
  return events;
}

/** A whole Converse answer. */
export function converseResponse(turn: Turn): Json {
  const content: Json[] = [];
  if (turn.thinking) content.push({ reasoningContent: { reasoningText: { text: 'Let me think.', signature: SIGNATURE } } }, { reasoningContent: { redactedContent: REDACTED } });
  if (turn.text) content.push({ text: turn.text });
  for (const t of turn.tools) content.push({ toolUse: { toolUseId: t.id, name: t.name, input: t.input } });
  return { output: { message: { role: 'assistant', content } }, stopReason: turn.tools.length ? 'tool_use' : 'end_turn', usage: converseUsage(turn), metrics: { latencyMs: 130 } };
}

/** The converse-stream events (`:event-type` and payload), in order; payloads carry Bedrock's `p` padding. */
export function converseEvents(turn: Turn): Array<{ type: string; payload: Json }> {
  const whole = converseResponse(turn);
  const out: Array<{ type: string; payload: Json }> = [{ type: 'messageStart', payload: { role: 'assistant', p: 'abcdefgh' } }];
  whole.output.message.content.forEach((block: Json, i: number) => {
    const at = { contentBlockIndex: i };
    if (block.reasoningContent?.reasoningText) {
      out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { reasoningContent: { text: block.reasoningContent.reasoningText.text } }, p: 'ab' } });
      out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { reasoningContent: { signature: block.reasoningContent.reasoningText.signature } }, p: 'ab' } });
    } else if (block.reasoningContent) {
      out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { reasoningContent: { redactedContent: block.reasoningContent.redactedContent } } } });
    } else if (block.text !== undefined) {
      for (const word of (block.text as string).split(/(?= )/)) out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { text: word }, p: 'abcd' } });
    } else {
      out.push({ type: 'contentBlockStart', payload: { ...at, start: { toolUse: { toolUseId: block.toolUse.toolUseId, name: block.toolUse.name } } } });
      const json = JSON.stringify(block.toolUse.input);
      out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { toolUse: { input: json.slice(0, 4) } } } });
      out.push({ type: 'contentBlockDelta', payload: { ...at, delta: { toolUse: { input: json.slice(4) } } } });
    }
    out.push({ type: 'contentBlockStop', payload: { ...at, p: 'a' } });
  });
  out.push({ type: 'messageStop', payload: { stopReason: whole.stopReason } });
  out.push({ type: 'metadata', payload: { usage: whole.usage, metrics: { latencyMs: 130 }, p: 'abc' } });
  return out;
}
