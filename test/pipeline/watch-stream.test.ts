import { describe, expect, it } from 'vitest';
import { watchStream } from '../../src/pipeline/watch-stream.ts';

describe('watchStream', () => {
  it('flags records that cannot be one JSON object', () => {
    const watch = watchStream('chat', 'p');
    expect(watch.check({ data: '{"a":1}' })).toBeUndefined();
    expect(watch.check({ data: '{"a":1}\r' })).toBeUndefined();
    expect(watch.check({ data: '' })).toBeUndefined();
    expect(watch.check({ data: '{"choices":[' })?.code).toBe('provider_error');
    expect(watch.check({ data: 'not json' })?.code).toBe('provider_error');
    expect(watchStream('messages', 'p').check({ event: 'ping', data: '[DONE]' })?.code).toBe('provider_error');
  });

  it('knows when each format finished', () => {
    const chat = watchStream('chat', 'p');
    chat.check({ data: '{"choices":[{"delta":{"content":"x"},"finish_reason":null}]}' });
    expect(chat.finished).toBe(false);
    chat.check({ data: '{"choices":[{"delta":{},"finish_reason": "stop"}]}' });
    expect(chat.finished).toBe(true);
    const second = watchStream('chat', 'p');
    second.check({ data: '{"choices":[{"index":0,"finish_reason":null},{"index":1,"finish_reason":"stop"}]}' });
    expect(second.finished).toBe(true);
    const done = watchStream('chat', 'p');
    done.check({ data: '[DONE]' });
    expect(done.finished).toBe(true);
    const messages = watchStream('messages', 'p');
    messages.check({ event: 'message_delta', data: '{"type":"message_delta"}' });
    expect(messages.finished).toBe(false);
    messages.check({ event: 'message_stop', data: '{"type":"message_stop"}' });
    expect(messages.finished).toBe(true);
    const responses = watchStream('responses', 'p');
    responses.check({ event: 'response.output_text.delta', data: '{}' });
    expect(responses.finished).toBe(false);
    responses.check({ event: 'response.incomplete', data: '{}' });
    expect(responses.finished).toBe(true);
  });

  it('watches only for the last record when not asked where the answer finished (a conversion), with the same records valid', () => {
    const chat = watchStream('chat', 'p', false);
    chat.check({ data: '{"choices":[{"delta":{},"finish_reason":"stop"}]}' });
    expect(chat.finished).toBe(false);
    expect(chat.check({ data: 'not json' })?.code).toBe('provider_error');
    // A bare record the format names by its finish reason stays as valid as for a full watch.
    const bare = ' "finish_reason":"stop" ';
    expect(chat.check({ data: bare })).toEqual(watchStream('chat', 'p').check({ data: bare }));
    chat.check({ data: '[DONE]' });
    expect(chat.complete).toBe(true);
    expect(chat.finished).toBe(true);
  });

  it('says which record is the last one without taking it, and skips the finish of a record when asked', () => {
    const chat = watchStream('chat', 'p');
    expect(chat.completes({ data: '{"choices":[{"delta":{},"finish_reason":"stop"}]}' })).toBe(false);
    expect(chat.completes({ data: ' [DONE] ' })).toBe(true);
    expect(chat.complete).toBe(false);
    chat.check({ data: '{"choices":[{"delta":{},"finish_reason":"stop"}]}' }, false);
    expect(chat.finished).toBe(false);
    chat.check({ data: '[DONE]' }, false);
    expect(chat.finished && chat.complete).toBe(true);
    expect(chat.completes({ data: '[DONE]' })).toBe(false);
    expect(watchStream('messages', 'p').completes({ event: 'message_stop', data: '{"type":"message_stop"}' })).toBe(true);
  });
});
