/**
 * The built-in plugins run the provider conformance suite that the package exports to
 * third-party plugin authors (`gateway/plugin-kit/testing`), each against a fake upstream that
 * answers recorded wire fixtures (the mock needs none).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCases, providerCases } from '../../src/plugin-kit/testing.ts';
import { unregisterFormat, type FormatDefinition } from '../../src/formats/index.ts';
import { toyFormat } from '../formats/toy/index.ts';
import type { ProviderPlugin } from '../../src/plugin-kit/index.ts';
import mock from '../../plugins/mock/index.ts';
import openai from '../../plugins/openai/index.ts';
import anthropic from '../../plugins/anthropic/index.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';
import { loadPlugin } from '../../src/providers/index.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

const FORMAT_OF_PATH: Record<string, string> = { '/v1/chat/completions': 'chat', '/v1/responses': 'responses', '/v1/messages': 'messages', '/v1/completions': 'completions' };

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream((request) => {
    const format = FORMAT_OF_PATH[request.path];
    if (!format) return { status: 404, json: { error: { message: `no route ${request.path}` } } };
    if (request.json?.model === 'missing') return { status: 404, json: { type: 'error', error: { type: 'not_found_error', message: 'model: missing' } } };
    return request.json?.stream ? { headers: { 'content-type': 'text/event-stream' }, sse: [readFixture(`matrix/${format}/text.sse.txt`)] } : { json: readJsonFixture(`matrix/${format}/text.json`) };
  });
});
afterAll(() => upstream?.close());

const PLUGINS: Array<{ plugin: ProviderPlugin<any>; options: () => Parameters<typeof providerCases>[1] }> = [
  { plugin: mock, options: () => ({ model: 'echo' }) },
  { plugin: openai, options: () => ({ baseURL: `${upstream.url}/v1`, apiKey: 'k', model: 'gpt-x', failingModel: 'missing' }) },
  { plugin: anthropic, options: () => ({ baseURL: upstream.url, apiKey: 'k', model: 'claude-x', failingModel: 'missing' }) },
];

for (const { plugin, options } of PLUGINS) {
  describe(`the ${plugin.name} plugin passes the provider suite`, () => {
    // The cases are listed before the fake upstream starts; their options are read when they run.
    const names = providerCases(plugin, { model: 'listing', failingModel: plugin.name === 'mock' ? undefined : 'missing' }).map((c) => c.name);
    for (const [i, name] of names.entries()) it(name, () => providerCases(plugin, options())[i].run());
  });
}

describe('the provider suite', () => {
  it('fails a plugin that breaks the conventions (a plain Error for an upstream refusal, a stream cut short, a foreign format)', async () => {
    const sse = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n';
    const broken: ProviderPlugin = {
      name: 'broken',
      formats: ['chat'],
      setup: () => ({
        chat: async (call) => {
          if (call.model === 'missing') throw new Error('HTTP 404');
          return { status: 200, headers: {}, body: (async function* () { yield Buffer.from(sse); })() };
        },
      }),
    };
    const outcomes = await Promise.all(
      providerCases(broken, { model: 'm', failingModel: 'missing', formats: ['chat', 'messages'] }).map((c) => c.run().then(() => `${c.name}: ok`, (error: Error) => `${c.name}: ${error.message}`)),
    );
    expect(outcomes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/streamed.*does not end with a terminal record/),
        expect.stringMatching(/one convention.*chat threw Error: HTTP 404/),
        expect.stringMatching(/'messages', JSON.*not among the formats it declared/),
      ]),
    );
  });

  it('fails the shape case for a model of a type the gateway does not know (the host refuses to load it)', async () => {
    const typo: ProviderPlugin = { name: 'typo', formats: ['chat'], models: [{ id: 'm', type: 'chatt' as 'chat' }], setup: () => ({}) };
    const shape = providerCases(typo, { model: 'm' }).find((c) => c.name.startsWith('has the shape'))!;
    await expect(shape.run()).rejects.toThrow(/not a plugin the host loads \(models\.0\.type: .*"chat".*"image_generation"/);
  });

  it('judges a shape as the host does: what the gateway refuses at load, the suite fails, in the same words', async () => {
    const dir = tempDir('gw-conformance-shape-');
    const shapes: Record<string, string> = {
      'no-setup.mjs': "{ name: 'p', formats: ['chat'] }",
      'empty-name.mjs': "{ name: '', formats: ['chat'], setup: () => ({}) }",
      'outside.mjs': "{ name: 'p', formats: ['chat', 'responses'], supportedFormats: ['chat'], setup: () => ({}) }",
    };
    for (const [file, text] of Object.entries(shapes)) {
      fs.writeFileSync(path.join(dir, file), `export default ${text};\n`);
      const plugin = (await import(pathToFileURL(path.join(dir, file)).href)).default as ProviderPlugin;
      const host = await loadPlugin('x', `./${file}`, dir).then(() => 'loaded', (error: Error) => error.message);
      const suite = await providerCases(plugin, { model: 'm' }).find((c) => c.name.startsWith('has the shape'))!.run().then(() => 'passed', (error: Error) => error.message);
      const said = /\(([^)]*)\)/.exec(host)?.[1];
      expect(said, `${file}: the host refuses it (${host})`).toBeDefined();
      expect(suite, file).toContain(`(${said})`);
    }
  });

  it('says what to do about a plugin without setup or with formats outside supportedFormats, in every case, not a TypeError', async () => {
    const noSetup = { name: 'p', formats: ['chat'] } as unknown as ProviderPlugin;
    const outside: ProviderPlugin = { name: 'p', formats: ['chat', 'responses'], supportedFormats: ['chat'], setup: () => ({}) };
    for (const [plugin, advice] of [
      [noSetup, 'setup: missing: a plugin needs setup(ctx), which returns its instance ({ chat, close })'],
      [outside, "formats: names 'responses', which supportedFormats leaves out: add it to supportedFormats, or take it out of formats"],
    ] as const) {
      const outcomes = await Promise.all(providerCases(plugin, { model: 'm', failingModel: 'missing' }).map((c) => c.run().then(() => 'passed', (error: Error) => error.message)));
      for (const outcome of outcomes) expect(outcome).toContain(`not a plugin the host loads (${advice})`);
      // definePlugin types the object and adds nothing: no hint to wrap in it when the object is there and a field is wrong.
      for (const outcome of outcomes) expect(outcome).not.toContain('definePlugin');
    }
    const notAnObject = await providerCases('oops' as unknown as ProviderPlugin, { model: 'm' })[0].run().then(() => 'passed', (error: Error) => error.message);
    expect(notAnObject).toMatch(/not a plugin the host loads \(default export: .*\); export default definePlugin\(\{\.\.\.\}\)$/);
  });

  it('fails the error case when nothing answers at baseURL (a refusal no upstream gave proves nothing)', async () => {
    const closed = await startFakeUpstream(() => ({ json: {} }));
    const baseURL = `${closed.url}/v1`;
    await closed.close();
    const errorCase = providerCases(openai, { baseURL, apiKey: 'k', model: 'gpt-x', failingModel: 'missing' }).find((c) => c.name.includes('one convention'))!;
    await expect(errorCase.run()).rejects.toThrow(`chat with 'missing' never reached an upstream (ECONNREFUSED at ${baseURL})`);
  });
});

describe('the format suite (formatCases, for a format a plugin brings)', () => {
  it('fails a format whose reader hides the bytes it read and whose terminal() names no record', () => {
    // A reader that finds the records but returns no bytes: a passthrough client would get an empty stream.
    const hiding: FormatDefinition['framing'] = {
      ...toyFormat.framing,
      createReader() {
        const reader = toyFormat.framing.createReader();
        return { get records() { return reader.records; }, push: (chunk: Uint8Array) => (reader.push(chunk), Buffer.alloc(0)), end: () => reader.end() };
      },
    };
    const broken: FormatDefinition = { ...toyFormat, id: 'toy-broken', codec: { ...toyFormat.codec, format: 'toy-broken' }, routes: [{ ...toyFormat.routes[0], path: '/toy-broken/v1/chat/**' }], framing: hiding, terminal: () => undefined };
    try {
      const outcomes = formatCases(broken).map((c) => {
        try {
          c.run();
          return `${c.name}: ok`;
        } catch (error) {
          return `${c.name}: ${(error as Error).message}`;
        }
      });
      expect(outcomes).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^has routes.*: ok$/),
          expect.stringMatching(/^passes its stream through.*the bytes passed on differ/),
          expect.stringMatching(/^tells the end.*no record of a whole stream is terminal/),
          expect.stringMatching(/^converts its stream into 'chat'.*: ok$/),
        ]),
      );
    } finally {
      unregisterFormat('toy-broken');
    }
  });

  it('fails a format whose stream records are not whole JSON objects (the gateway takes them for cut records)', () => {
    const encoder = toyFormat.codec.createStreamEncoder.bind(toyFormat.codec);
    const cutting: FormatDefinition['codec'] = {
      ...toyFormat.codec,
      format: 'toy-cut',
      createStreamEncoder: (request, ids) => {
        const inner = encoder(request, ids);
        return { encode: (part) => inner.encode(part).map((record) => (record.event === 'piece' ? { ...record, data: record.data.slice(0, -1) } : record)) };
      },
    };
    const cut: FormatDefinition = { ...toyFormat, id: 'toy-cut', codec: cutting, routes: [{ ...toyFormat.routes[0], path: '/toy-cut/v1/chat/**' }] };
    try {
      const terminal = formatCases(cut).find((c) => c.name.startsWith('tells the end'))!;
      expect(() => terminal.run()).toThrow(/record "\{\\"text\\":\\"Héllo\\"" is not a JSON object and terminal\(\) does not name it/);
    } finally {
      unregisterFormat('toy-cut');
    }
  });
});
