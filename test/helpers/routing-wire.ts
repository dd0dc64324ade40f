import { parseSse, type SseRecord } from '../../src/sse/index.ts';
import { chatSse, namedSse } from './fake-upstream.ts';

/** A Chat Completions stream chunk as OpenAI sends it. */
export function chatChunk(delta: Record<string, unknown>, finish: string | null = null, id = 'chatcmpl-up1'): Record<string, unknown> {
  return { id, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** A whole Chat stream saying `words`, with a usage chunk and [DONE]. */
export function chatStream(words: string[], options: { usage?: boolean; done?: boolean } = {}): string[] {
  const chunks = [chatChunk({ role: 'assistant', content: '' }), ...words.map((w) => chatChunk({ content: w })), chatChunk({}, 'stop')];
  if (options.usage !== false) chunks.push({ ...chatChunk({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: words.length, total_tokens: 5 + words.length } });
  return chatSse(chunks, options.done !== false);
}

/** A whole Chat completion body. */
export function chatCompletion(text: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'm1',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
  };
}

/** An Anthropic Messages stream saying `words`. */
export function messagesStream(words: string[], options: { stop?: boolean } = {}): string[] {
  const events = [
    { type: 'message_start', message: { id: 'msg_up1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...words.map((w) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: words.length } },
  ];
  if (options.stop !== false) events.push({ type: 'message_stop' } as never);
  return namedSse(events);
}

/** A whole Anthropic Messages response body. */
export function messagesResponse(text: string): Record<string, unknown> {
  return {
    id: 'msg_up1',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 2 },
  };
}

/** The records of an SSE response body. */
export async function readSse(res: Response): Promise<SseRecord[]> {
  return parseSse(await res.text());
}

/** Chat text concatenated from the records' deltas. */
export function chatText(records: SseRecord[]): string {
  let text = '';
  for (const r of records) {
    if (r.data === '[DONE]') continue;
    const chunk = JSON.parse(r.data) as { choices?: Array<{ delta?: { content?: string } }> };
    for (const c of chunk.choices ?? []) text += c.delta?.content ?? '';
  }
  return text;
}
