import { describe, expect, it } from 'vitest';
import { patchClaudeBody, VERTEX_ANTHROPIC_VERSION } from '../../../plugins/google/vertex-claude-body.ts';

const VERSION = `"anthropic_version":"${VERTEX_ANTHROPIC_VERSION}"`;

describe('google plugin: a Messages body as Vertex takes it', () => {
  it('drops the top-level model and puts anthropic_version first, every other byte as the client wrote it', () => {
    const signature = 'EqQBCkgIARABGAIiQ+/x=\\u00e9\\"quoted\\"';
    const raw = `{ "model" : "claude-x",\n  "max_tokens": 1.0e3, "messages": [{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"${signature}"},{"type":"tool_use","id":"t1","name":"f","input":{"model":"inner"}}]}], "stream": true }`;
    const patched = patchClaudeBody(raw)!;
    expect(patched).toBe(`{${VERSION}, "max_tokens": 1.0e3, "messages": [{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"${signature}"},{"type":"tool_use","id":"t1","name":"f","input":{"model":"inner"}}]}], "stream": true }`);
    expect(JSON.parse(patched).messages[0].content[0].signature).toBe(JSON.parse(`"${signature}"`));
  });

  it('cuts a model in the middle or at the end with its comma', () => {
    expect(patchClaudeBody('{"max_tokens":5,"model":"m","stream":false}')).toBe(`{${VERSION},"max_tokens":5,"stream":false}`);
    expect(patchClaudeBody('{"max_tokens":5, "model":"m" }')).toBe(`{${VERSION},"max_tokens":5 }`);
    expect(patchClaudeBody('{"model":"m"}')).toBe(`{${VERSION}}`);
    expect(patchClaudeBody('{}')).toBe(`{${VERSION}}`);
  });

  it("keeps a client's own anthropic_version", () => {
    expect(patchClaudeBody('{"anthropic_version":"vertex-2099-01-01","model":"m","max_tokens":1}')).toBe('{"anthropic_version":"vertex-2099-01-01","max_tokens":1}');
  });

  it('gives up (undefined) on text that is not one JSON object', () => {
    expect(patchClaudeBody('[1]')).toBeUndefined();
    expect(patchClaudeBody('{"model":"m",')).toBeUndefined();
    expect(patchClaudeBody('{"a":"unterminated}')).toBeUndefined();
  });
});
