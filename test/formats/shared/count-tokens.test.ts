import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/index.ts';
import { loneResultsAsUserContent } from '../../../src/formats/shared/index.ts';

const request = (messages: ChatRequest['messages']): ChatRequest => ({ model: 'm', system: [], messages, stream: false });

describe('loneResultsAsUserContent', () => {
  it('leaves a request whose results all follow their calls as it is', () => {
    const paired = request([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{}' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: 'one' }] },
    ]);
    expect(loneResultsAsUserContent(paired)).toBe(paired);
  });

  it("turns a result without its call into the user content it holds, keeping the paired ones", () => {
    const image = { type: 'image' as const, source: { kind: 'base64' as const, mediaType: 'image/png', data: 'AA==' } };
    const out = loneResultsAsUserContent(
      request([
        { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{}' }] },
        {
          role: 'tool',
          content: [
            { type: 'tool_result', toolCallId: 'c1', content: 'one' },
            { type: 'tool_result', toolCallId: 'gone', content: 'two' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c9', content: [{ type: 'text', text: 'three' }, image] }] },
      ]),
    );
    expect(out.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{}' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: 'one' }] },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'three' }, image] },
    ]);
  });
});
