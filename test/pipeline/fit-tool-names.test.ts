/**
 * Tool names fitted to the target format's rule (docs/formats.md, "Tool names"): a name the
 * target refuses is shortened the same way wherever it appears, names that fit are kept, and the
 * answer's calls map back. The e2e side is test/e2e/long-tool-names.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse } from '../../src/ir/index.ts';
import { fitToolNames, restoreToolName, restoreToolNames } from '../../src/pipeline/fit-tool-names.ts';

const DOTTED = 'files.read:v2';
const LONG = `mcp__server__${'x'.repeat(100)}`;

function request(names: string[], choice?: string): ChatRequest {
  return {
    model: 'up/m',
    system: [],
    stream: false,
    tools: names.map((name) => ({ name, parameters: { type: 'object', properties: {} } })),
    toolChoice: choice === undefined ? undefined : { type: 'tool', name: choice },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }, ...names.map((name, i) => ({ type: 'tool_call' as const, id: `c${i}`, name, arguments: '{}' }))] },
      { role: 'tool', content: names.map((_, i) => ({ type: 'tool_result' as const, toolCallId: `c${i}`, content: 'done' })) },
    ],
  };
}

describe('fitToolNames', () => {
  it('keeps a request whose names all fit (the same object)', () => {
    const input = request(['get_weather', 'Write']);
    expect(fitToolNames(input, 'chat').request).toBe(input);
    expect(fitToolNames(input, 'chat').names).toBeUndefined();
  });

  it.each([
    ['chat', /^[a-zA-Z0-9_-]{1,64}$/],
    ['responses', /^[a-zA-Z0-9_-]{1,64}$/],
    ['gemini', /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/],
    ['messages', /^[a-zA-Z0-9_-]{1,128}$/],
  ])('%s: tools, tool_choice and history calls get one name the target takes', (target, pattern) => {
    const { request: fitted, names } = fitToolNames(request([LONG, DOTTED, '9lives', 'ok'], LONG), target);
    const offered = fitted.tools!.map((tool) => tool.name);
    for (const name of offered) expect(name).toMatch(pattern);
    expect(offered[3]).toBe('ok');
    expect(fitted.toolChoice).toEqual({ type: 'tool', name: offered[0] });
    const calls = fitted.messages[1].content.flatMap((part) => (part.type === 'tool_call' ? [part.name] : []));
    expect(calls).toEqual(offered);
    // The names map back to the client's, exactly those the target refused (Gemini takes `.` and `:`, Anthropic 128 characters).
    const refused = [LONG, DOTTED, '9lives'].flatMap((client, i) => (offered[i] === client ? [] : [[offered[i], client] as const]));
    expect(names).toEqual(new Map(refused));
    if (target === 'gemini') expect(refused.map(([, client]) => client)).toEqual([LONG, '9lives']);
    // Stateless: the next turn maps the same way.
    expect(fitToolNames(request([LONG, DOTTED, '9lives', 'ok'], LONG), target).request.tools).toEqual(fitted.tools);
  });

  it('a name only in the tool_choice is fitted too', () => {
    const { request: fitted } = fitToolNames({ ...request([]), toolChoice: { type: 'tool', name: LONG } }, 'chat');
    expect(fitted.toolChoice).toEqual({ type: 'tool', name: expect.stringMatching(/^mcp__server__x+_[0-9a-f]{8}$/) });
  });

  it('maps the answer back, whole and streamed; names it did not give are left alone', () => {
    const { request: fitted, names } = fitToolNames(request([LONG, 'ok']), 'responses');
    const short = fitted.tools![0].name;
    const response: ChatResponse = {
      id: 'r', model: 'm', created: 0, finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 },
      content: [{ type: 'tool_call', id: 'a', name: short, arguments: '{}' }, { type: 'tool_call', id: 'b', name: 'ok', arguments: '{}' }],
    };
    expect(restoreToolNames(response, names!).content.map((part) => (part.type === 'tool_call' ? part.name : ''))).toEqual([LONG, 'ok']);
    expect(restoreToolName({ type: 'tool-call-start', index: 0, id: 'a', name: short }, names!)).toMatchObject({ name: LONG });
    expect(restoreToolName({ type: 'tool-call-start', index: 0, id: 'b', name: 'other' }, names!)).toMatchObject({ name: 'other' });
  });
});
