/**
 * Claude Code sends `role: "system"` messages inside `messages` (beta
 * mid-conversation-system-2026-04-07), `thinking: {type: "adaptive"}` and `output_config.effort`
 * for model ids it does not recognise. The body must decode and convert to every upstream
 * format with the system message at its place.
 */
import { describe, expect, it } from 'vitest';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';

const CLAUDE_CODE_BODY = {
  model: 'oai/gpt-4.1',
  max_tokens: 32000,
  system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Write hello.txt' }] },
    { role: 'system', content: 'The user is working in /tmp/project.' },
    { role: 'user', content: 'go' },
  ],
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  metadata: { user_id: 'user_abc_session_1' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  stream: true,
};

describe('a Claude Code body with a system message inside messages', () => {
  const request = messagesCodec.decodeRequest(structuredClone(CLAUDE_CODE_BODY));

  it('decodes: the system turn in place, adaptive thinking with its effort', () => {
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'system', 'user']);
    expect(request.reasoning).toEqual({ enabled: true, effort: 'high', summary: 'auto' });
    expect(request.user).toBe('user_abc_session_1');
  });

  it('→ Chat: a system message at the same position', () => {
    const body = chatCodec.encodeRequest({ ...request, extra: undefined }, { upstreamModel: 'gpt-4.1' });
    expect((body.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['system', 'user', 'system', 'user']);
    expect((body.messages as Array<{ content: unknown }>)[2].content).toBe('The user is working in /tmp/project.');
  });

  it('→ Responses: a system message item at the same position', () => {
    const body = responsesCodec.encodeRequest({ ...request, extra: undefined }, { upstreamModel: 'gpt-4.1' });
    const input = body.input as Array<{ type?: string; role?: string }>;
    expect(input.map((item) => item.role)).toEqual(['user', 'system', 'user']);
    expect(body.instructions).toBe('You are Claude Code.');
  });

  it('→ Responses on a reasoning model: its thinking asked for as a summary (OpenAI returns no reasoning text otherwise), signed', () => {
    const body = responsesCodec.encodeRequest({ ...request, extra: undefined }, { upstreamModel: 'gpt-5', converted: true });
    // Before: { effort: 'high' } alone, and Claude Code showed every thinking block empty.
    expect(body.reasoning).toEqual({ effort: 'high', summary: 'auto' });
    expect(body.include).toEqual(['reasoning.encrypted_content']);
  });

  it('→ Messages (converted, e.g. from Chat): folded into system, the only place every Anthropic model takes it', () => {
    const body = messagesCodec.encodeRequest({ ...request, extra: undefined }, { upstreamModel: 'claude-x' });
    expect((body.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['user']);
    expect(JSON.stringify(body.system)).toContain('The user is working in /tmp/project.');
  });
});
