import { describe, expect, it } from 'vitest';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { responsesVendorTools } from '../../../src/formats/responses/read-request.ts';

/** What the AI SDK's openai.tools.shell and applyPatch send on a later step (OpenAI's item shapes). */
const body = {
  model: 'ant/claude',
  tools: [{ type: 'shell', environment: { type: 'local' } }, { type: 'apply_patch' }],
  tool_choice: { type: 'apply_patch' },
  input: [
    { role: 'user', content: 'Fix it.' },
    { type: 'shell_call', id: 'sh_1', call_id: 'call_1', status: 'completed', action: { commands: ['ls'], timeout_ms: 5000, max_output_length: null } },
    { type: 'shell_call_output', call_id: 'call_1', output: [{ stdout: 'a.txt\n', stderr: 'warn', outcome: { type: 'exit', exit_code: 1 } }, { stdout: '', stderr: '', outcome: { type: 'timeout' } }] },
    { type: 'apply_patch_call', id: 'ap_1', call_id: 'call_2', status: 'completed', operation: { type: 'delete_file', path: 'a.txt' } },
    { type: 'apply_patch_call_output', call_id: 'call_2', status: 'failed' },
  ],
};

describe('responses shell and apply_patch on other formats', () => {
  it('decodes the tools as functions, their calls and outputs as those functions\' calls and results', () => {
    const request = responsesCodec.decodeRequest(body);
    expect(request.tools?.map((tool) => [tool.name, tool.shellTool])).toEqual([['shell', 'shell'], ['apply_patch', 'apply_patch']]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'apply_patch' });
    expect(responsesVendorTools(request)).toBeUndefined();
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'shell', arguments: '{"commands":["ls"],"timeout_ms":5000}', itemId: 'sh_1' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_1', content: 'a.txt\n\nstderr:\nwarn\n(exit code 1)\n\n(timed out)' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_2', name: 'apply_patch', arguments: '{"type":"delete_file","path":"a.txt"}', itemId: 'ap_1' }] },
      { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'call_2', content: 'The patch failed.' }] },
    ]);
  });

  it('keeps a shell tool in OpenAI\'s container hosted', () => {
    const request = responsesCodec.decodeRequest({ model: 'm', input: 'hi', tools: [{ type: 'shell', environment: { type: 'container_auto' } }] });
    expect(request.tools ?? []).toEqual([]);
    expect(responsesVendorTools(request)?.types).toEqual(['shell']);
  });

  it('gives calls back as shell_call and apply_patch_call items', () => {
    const request = responsesCodec.decodeRequest(body);
    const content = [
      { type: 'tool_call' as const, id: 'call_8', name: 'shell', arguments: '{"commands":["pwd"]}' },
      { type: 'tool_call' as const, id: 'call_9', name: 'apply_patch', arguments: '{"type":"create_file","path":"b.txt","diff":"+hi\\n"}' },
    ];
    const whole = responsesCodec.encodeResponse({ id: 'r1', model: 'm', created: 1, content, finishReason: 'tool_calls', usage: { inputTokens: 5, outputTokens: 5 } }, request) as { output: Array<Record<string, unknown>> };
    expect(whole.output).toEqual([
      expect.objectContaining({ type: 'shell_call', call_id: 'call_8', status: 'completed', action: { commands: ['pwd'], timeout_ms: null, max_output_length: null } }),
      expect.objectContaining({ type: 'apply_patch_call', call_id: 'call_9', status: 'completed', operation: { type: 'create_file', path: 'b.txt', diff: '+hi\n' } }),
    ]);
  });
});
