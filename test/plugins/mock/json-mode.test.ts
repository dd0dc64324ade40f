import { describe, expect, it } from 'vitest';
import { useMockGateway } from './mock-gateway.ts';

// mock/echo lists json_mode but answered a JSON-mode request with the prompt as plain text, which no client can parse.
describe('mock/echo in JSON mode', () => {
  const mock = useMockGateway();
  const post = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await mock.post(route, body, headers);
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, any>;
  };
  const messages = [{ role: 'user', content: 'Hello JSON' }];
  const schema = { type: 'object', properties: { answer: { type: 'string' }, count: { type: 'integer' }, ok: { type: 'boolean' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['answer', 'count', 'ok', 'tags'], additionalProperties: false };

  it('Chat Completions: json_object answers {"echo": …}, json_schema an object with the required fields, text stays text', async () => {
    const object = await post('/v1/chat/completions', { model: 'mock/echo', messages, response_format: { type: 'json_object' } });
    expect(JSON.parse(object.choices[0].message.content)).toEqual({ echo: 'Hello JSON' });
    const shaped = await post('/v1/chat/completions', { model: 'mock/echo', messages, response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } } });
    expect(JSON.parse(shaped.choices[0].message.content)).toEqual({ answer: 'Hello JSON', count: 1, ok: true, tags: [] });
    const text = await post('/v1/chat/completions', { model: 'mock/echo', messages, response_format: { type: 'text' } });
    expect(text.choices[0].message.content).toBe('Hello JSON');
  });

  it('Chat Completions streaming: the deltas join into the same JSON', async () => {
    const res = await mock.post('/v1/chat/completions', { model: 'mock/echo', messages, stream: true, response_format: { type: 'json_object' } });
    const text = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(JSON.parse(text)).toEqual({ echo: 'Hello JSON' });
  });

  it('Responses text.format, Anthropic output_config.format and Gemini responseMimeType get JSON too', async () => {
    const responses = await post('/v1/responses', { model: 'mock/echo', input: 'Hello JSON', text: { format: { type: 'json_schema', name: 'reply', schema, strict: true } } });
    expect(JSON.parse(responses.output_text ?? responses.output.find((o: { type: string }) => o.type === 'message').content[0].text)).toEqual({ answer: 'Hello JSON', count: 1, ok: true, tags: [] });
    const anthropic = await post('/v1/messages', { model: 'mock/echo', max_tokens: 256, messages, output_config: { format: { type: 'json_schema', schema } } }, { 'anthropic-version': '2023-06-01' });
    expect(JSON.parse(anthropic.content[0].text)).toEqual({ answer: 'Hello JSON', count: 1, ok: true, tags: [] });
    const gemini = await post('/v1beta/models/mock/echo:generateContent', { contents: [{ role: 'user', parts: [{ text: 'Hello JSON' }] }], generationConfig: { responseMimeType: 'application/json' } });
    expect(JSON.parse(gemini.candidates[0].content.parts[0].text)).toEqual({ echo: 'Hello JSON' });
    const geminiSchema = await post('/v1beta/models/mock/echo:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'Hello JSON' }] }],
      generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { city: { type: 'STRING' }, days: { type: 'NUMBER' } }, required: ['city', 'days'] } },
    });
    expect(JSON.parse(geminiSchema.candidates[0].content.parts[0].text)).toEqual({ city: 'Hello JSON', days: 1 });
  });

  // JSON Schema lets a schema be `true` (anything) or `false`; reading `'const' in true` threw, the plugin's throw was
  // a 502, and its failures opened mock/echo's circuit (503 for every caller for 30 s).
  it('a boolean schema, or a boolean subschema, answers JSON too', async () => {
    const boolean = { type: 'object', properties: { anything: true, answer: { type: 'string' } }, required: ['anything', 'answer'] };
    const nested = await post('/v1/chat/completions', { model: 'mock/echo', messages, response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: boolean } } });
    expect(JSON.parse(nested.choices[0].message.content)).toEqual({ anything: 'Hello JSON', answer: 'Hello JSON' });
    const top = await post('/v1/chat/completions', { model: 'mock/echo', messages, response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: true } } });
    expect(JSON.parse(top.choices[0].message.content)).toEqual({ echo: 'Hello JSON' });
  });
});
