import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/ir/types.ts';
import { adaptForAnthropicThinking, adaptForReasoningModel, isOpenAIModel, isOpenAIReasoningModel } from '../../../src/formats/shared/index.ts';

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'm',
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'Late rule.' }] },
    ],
    stream: false,
    temperature: 0.7,
    topP: 0.5,
    topK: 20,
    maxTokens: 500,
    ...overrides,
  };
}

describe('isOpenAIReasoningModel', () => {
  it.each(['o1', 'o1-mini', 'o3', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5.1', 'gpt-5.1-chat-latest', 'openai/o3'])('%s is a reasoning model', (id) => {
    expect(isOpenAIReasoningModel(id)).toBe(true);
  });

  it.each(['gpt-4o', 'gpt-4.1-mini', 'gpt-5-chat-latest', 'azure/gpt-5-chat', 'claude-sonnet-4', 'omni-moderation', 'deepseek-reasoner'])('%s is not', (id) => {
    expect(isOpenAIReasoningModel(id)).toBe(false);
  });
});

describe('isOpenAIModel', () => {
  it.each(['gpt-4.1', 'gpt-5-mini', 'o3', 'o4-mini', 'chatgpt-4o-latest', 'codex-mini-latest', 'openai/gpt-4o'])('%s is served by OpenAI', (id) => {
    expect(isOpenAIModel(id)).toBe(true);
  });

  it.each(['openai/gpt-oss-120b', 'gpt-oss-20b', 'llama-3.3-70b-versatile', 'deepseek-chat', 'gemini-2.5-flash', 'claude-sonnet-4', 'omni-moderation'])('%s is not', (id) => {
    expect(isOpenAIModel(id)).toBe(false);
  });
});

describe('adaptForReasoningModel', () => {
  it('drops temperature/top_p and turns system into developer for OpenAI reasoning models', () => {
    const adapted = adaptForReasoningModel(request({ presencePenalty: 1 }), 'o3-mini');
    expect(adapted.temperature).toBeUndefined();
    expect(adapted.topP).toBeUndefined();
    expect(adapted.presencePenalty).toBeUndefined();
    expect(adapted.system).toEqual([]);
    expect(adapted.messages.map((m) => m.role)).toEqual(['developer', 'user', 'developer']);
    expect(adapted.messages[0].content).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(adapted.maxTokens).toBe(500);
  });

  it('drops stop sequences for OpenAI reasoning models, which refuse them', () => {
    expect(adaptForReasoningModel(request({ stop: ['END'] }), 'gpt-5').stop).toBeUndefined();
    expect(adaptForReasoningModel(request({ stop: ['END'] }), 'o3').stop).toBeUndefined();
    expect(adaptForReasoningModel(request({ stop: ['END'] }), 'gpt-5-chat-latest').stop).toEqual(['END']);
  });

  it('leaves ordinary chat models alone', () => {
    const input = request();
    expect(adaptForReasoningModel(input, 'gpt-4o')).toBe(input);
  });

  it('is idempotent', () => {
    const once = adaptForReasoningModel(request(), 'gpt-5');
    expect(adaptForReasoningModel(once, 'gpt-5')).toEqual(once);
  });

  it('applies the thinking rules for Messages targets', () => {
    const adapted = adaptForReasoningModel(request({ reasoning: { enabled: true, budgetTokens: 2048 }, toolChoice: 'required' }), 'claude-sonnet-4', 'messages');
    expect(adapted.temperature).toBeUndefined();
    expect(adapted.topK).toBeUndefined();
    expect(adapted.topP).toBeUndefined(); // 0.5 is below the 0.95 Anthropic allows with thinking
    expect(adapted.toolChoice).toBe('auto');
  });
});

describe('adaptForAnthropicThinking', () => {
  it('does nothing without thinking', () => {
    const input = request({ toolChoice: { type: 'tool', name: 'x' } });
    expect(adaptForAnthropicThinking(input)).toBe(input);
  });

  it('turns a forced tool into auto and keeps a high top_p', () => {
    const adapted = adaptForAnthropicThinking(request({ reasoning: { enabled: true }, toolChoice: { type: 'tool', name: 'x' }, topP: 0.97 }));
    expect(adapted.toolChoice).toBe('auto');
    expect(adapted.topP).toBe(0.97);
  });

  it('switches thinking off when a tool loop continues without signed thinking', () => {
    const adapted = adaptForAnthropicThinking(
      request({
        reasoning: { enabled: true, budgetTokens: 1024 },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
          { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'w', arguments: '{}' }] },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: 'sunny' }] },
        ],
      }),
    );
    expect(adapted.reasoning?.enabled).toBe(false);
  });

  it('keeps thinking on when the client sent the signed thinking back', () => {
    const adapted = adaptForAnthropicThinking(
      request({
        reasoning: { enabled: true, budgetTokens: 1024 },
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'call it', signature: 'SIG' },
              { type: 'tool_call', id: 'c1', name: 'w', arguments: '{}' },
            ],
          },
          { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c1', content: 'sunny' }] },
        ],
      }),
    );
    expect(adapted.reasoning?.enabled).toBe(true);
  });
});
