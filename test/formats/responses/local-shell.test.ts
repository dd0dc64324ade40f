import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { STREAM_IDS } from '../stream-helpers.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';

/** What the AI SDK's openai.tools.localShell sends on its second step (OpenAI's item shapes). */
const body = {
  model: 'ant/claude',
  tools: [{ type: 'local_shell' }],
  tool_choice: { type: 'local_shell' },
  input: [
    { role: 'user', content: 'List the files.' },
    { type: 'local_shell_call', id: 'lsh_1', call_id: 'call_1', status: 'completed', action: { type: 'exec', command: ['ls', '-la'], env: {}, working_directory: '/tmp', timeout_ms: 5000 } },
    { type: 'local_shell_call_output', call_id: 'call_1', output: 'a.txt\n' },
  ],
};

describe('responses local_shell on other formats', () => {
  it('decodes the tool as a function, its call and output as that function\'s call and result', () => {
    const request = responsesCodec.decodeRequest(body);
    expect(request.tools).toEqual([expect.objectContaining({ name: 'local_shell', localShell: true, parameters: expect.objectContaining({ required: ['command'] }) })]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'local_shell' });
    expect(request.extra?.hostedTools ?? []).toEqual([]);
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'local_shell', arguments: '{"command":["ls","-la"],"env":{},"working_directory":"/tmp","timeout_ms":5000}', itemId: 'lsh_1' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_1', content: 'a.txt\n' }] },
    ]);
  });

  it('gives a call of the function back as a local_shell_call item, whole and streamed', () => {
    const request = responsesCodec.decodeRequest(body) as ChatRequest;
    const args = '{"command":["bash","-lc","echo hi"],"working_directory":"/w"}';
    const action = { type: 'exec', command: ['bash', '-lc', 'echo hi'], env: {}, working_directory: '/w' };
    const whole = responsesCodec.encodeResponse({ id: 'r1', model: 'm', created: 1, content: [{ type: 'tool_call', id: 'call_9', name: 'local_shell', arguments: args }], finishReason: 'tool_calls', usage: { inputTokens: 5, outputTokens: 5 } }, request) as { output: Array<Record<string, unknown>> };
    expect(whole.output).toEqual([expect.objectContaining({ type: 'local_shell_call', call_id: 'call_9', status: 'completed', action })]);
    const encoder = responsesCodec.createStreamEncoder(request, STREAM_IDS);
    const parts: StreamPart[] = [
      { type: 'start', id: 'r1', model: 'm', created: 1 },
      { type: 'tool-call-start', index: 0, id: 'call_9', name: 'local_shell' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: args.slice(0, 10) },
      { type: 'tool-call-delta', index: 0, argumentsDelta: args.slice(10) },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 5, outputTokens: 5 } },
      { type: 'end' },
    ];
    const records = parts.flatMap((part) => encoder.encode(part)).map((record) => JSON.parse(record.data) as Record<string, any>);
    const types = records.map((record) => record.type);
    expect(types).not.toContain('response.function_call_arguments.delta');
    const done = records.find((record) => record.type === 'response.output_item.done');
    expect(done?.item).toEqual(expect.objectContaining({ type: 'local_shell_call', call_id: 'call_9', action }));
    const completed = records.find((record) => record.type === 'response.completed');
    expect(completed?.response.output).toEqual([expect.objectContaining({ type: 'local_shell_call', action })]);
  });
});
