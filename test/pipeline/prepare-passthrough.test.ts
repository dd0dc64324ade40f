/**
 * A same-format body goes upstream as the client wrote it but for the model id; when the id
 * cannot be rewritten in the text, the body is serialised again from a copy, which must keep
 * every key the client sent (opaque fields round-trip), `__proto__` included.
 */
import { describe, expect, it } from 'vitest';
import { prepareCall, readInbound } from '../../src/pipeline/index.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';

const provider = { id: 'up', formats: ['chat'] } as unknown as Provider;
const model: CatalogModel = { id: 'up/up-model', provider, upstreamId: 'up-model', spec: { id: 'up-model' }, formats: ['chat'] };

function sentFor(raw: string): string | undefined {
  const source = { format: 'chat' as const, raw, body: JSON.parse(raw) as Record<string, unknown>, forwardHeaders: {} };
  return prepareCall(source, readInbound(source), model, { defaultMaxTokens: 4096 }).call.rawBody;
}

describe('passthrough body with the upstream model id', () => {
  it('rewrites the id in the text when it is there once', () => {
    expect(sentFor('{"model":"up/up-model", "messages":[]}')).toBe('{"model":"up-model", "messages":[]}');
  });

  it('serialises a copy otherwise, with every key as sent (a `__proto__` key stays a key, not the prototype)', () => {
    const raw = '{"model":"up/up-model","messages":[],"metadata":{"model":"up/up-model"},"__proto__":{"x":1}}';
    const sent = sentFor(raw)!;
    expect(JSON.parse(sent)).toEqual(JSON.parse(raw.replace('"model":"up/up-model","messages"', '"model":"up-model","messages"')));
    expect(sent).toContain('"__proto__":{"x":1}');
  });
});
