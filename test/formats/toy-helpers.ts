/** What the toy format's tests share: fake upstreams answering the matrix's text fixtures, and toy frames read back. */
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { readFixture, readJsonFixture } from './stream-helpers.ts';
import { binaryFraming } from './toy/frame-binary.ts';

type Json = Record<string, any>;

/** A fake upstream of one SSE format answering the matrix's text fixtures. */
export function fixtureUpstream(format: 'messages' | 'responses'): Promise<FakeUpstream> {
  return startFakeUpstream((request) =>
    request.json?.stream ? { headers: { 'content-type': 'text/event-stream' }, sse: [readFixture(`matrix/${format}/text.sse.txt`)] } : { json: readJsonFixture(`matrix/${format}/text.json`) },
  );
}

/** The providers both toy tests configure: the mock, the toy plugin (at `toyPlugin`), and a Messages and a Responses upstream. */
export function toyProviders(toyPlugin: string, messages: FakeUpstream, responses: FakeUpstream): Record<string, Json> {
  return {
    mock: { plugin: 'mock' },
    toy: { plugin: toyPlugin },
    anth: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'up', models: ['claude-x'] },
    resp: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'up', formats: ['responses'], models: ['gpt-resp'] },
  };
}

/** The records of a toy stream (binary frames), cut at `every` bytes so the reader reassembles them. */
export function toyRecords(bytes: Buffer, every = 3): Array<{ event?: string; data: Json }> {
  const reader = binaryFraming.createReader();
  const out: Array<{ event?: string; data: Json }> = [];
  for (let at = 0; at < bytes.length; at += every) {
    reader.push(bytes.subarray(at, at + every));
    for (const r of reader.records) out.push({ event: r.event, data: JSON.parse(r.data) as Json });
  }
  return out;
}
