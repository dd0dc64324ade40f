// The newest official SDKs as a user on Node 22+ runs them: openai 7 (which needs Node 22) and
// @anthropic-ai/sdk 1.14, imported under their test/clients aliases. Run by
// test/e2e/official-sdks-node22.test.ts under each Node 22+ binary of GATEWAY_TEST_NODE_BINS:
// `node official-sdks.mjs` with GATEWAY_URL and GATEWAY_KEY in the environment. Prints one JSON
// object: what each call gave, or `{ error }` where it threw.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI, { toFile, toStreamingFile } from 'openai-v7';
import { VERSION as OPENAI_VERSION } from 'openai-v7/version';
import Anthropic from 'anthropic-sdk-v1-14';
import { VERSION as ANTHROPIC_VERSION } from 'anthropic-sdk-v1-14/version';

const url = process.env.GATEWAY_URL;
const key = process.env.GATEWAY_KEY;
const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0, timeout: 20_000 });
const anthropic = new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0, timeout: 20_000 });
const user = (content) => [{ role: 'user', content }];
const report = { node: process.version, openai: OPENAI_VERSION, anthropic: ANTHROPIC_VERSION };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-official-sdks-'));
const audioFile = path.join(dir, 'speech.mp3');

async function run(name, call) {
  try {
    report[name] = await call();
  } catch (error) {
    report[name] = { error: `${error?.constructor?.name}: ${error?.message}` };
  }
}

/** What an error the SDK threw says: whether it is an instance of `Class`, its status and OpenAI's error fields. */
async function thrown(Class, call) {
  try {
    await call();
    return 'no error';
  } catch (error) {
    return { instance: error instanceof Class, class: error.constructor.name, status: error.status, code: error.code, type: error.type, param: error.param, requestId: error.requestID };
  }
}

await run('chat', async () => {
  const completion = await openai.chat.completions.create({ model: 'mock/echo', messages: user('chat on v7') });
  return { text: completion.choices[0].message.content, requestId: completion._request_id };
});
await run('chatStream', async () => {
  const stream = await openai.chat.completions.create({ model: 'mock/echo', messages: user('chat stream on v7'), stream: true, stream_options: { include_usage: true } });
  let text = '';
  let usage;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    usage ??= chunk.usage ?? undefined;
  }
  return { text, usage: usage !== undefined };
});
await run('chatStreamHelper', async () => {
  const completion = await openai.chat.completions.stream({ model: 'mock/echo', messages: user('helper on v7') }).finalChatCompletion();
  return completion.choices[0].message.content;
});
await run('responses', async () => {
  const response = await openai.responses.create({ model: 'mock/echo', input: 'responses on v7' });
  const again = await openai.responses.retrieve(response.id);
  return { text: response.output_text, status: response.status, retrieved: again.output_text };
});
await run('responsesStream', async () => {
  const response = await openai.responses.stream({ model: 'mock/echo', input: 'responses stream on v7' }).finalResponse();
  return { text: response.output_text, status: response.status };
});
// With the gateway's routing events asked for, on a model whose first provider fails (spec §6.4).
await run('responsesStreamRoutingEvents', async () => {
  const stream = openai.responses.stream({ model: 'echo', input: 'routed on v7' }, { headers: { 'X-Gateway-Events': 'routing' } });
  const response = await stream.finalResponse();
  return { text: response.output_text, status: response.status };
});
await run('chatStreamRoutingEvents', async () => {
  const stream = openai.chat.completions.stream({ model: 'echo', messages: user('routed chat on v7') }, { headers: { 'X-Gateway-Events': 'routing' } });
  return (await stream.finalChatCompletion()).choices[0].message.content;
});
await run('speech', async () => {
  const speech = await openai.audio.speech.create({ model: 'mock/tts', input: 'hello from v7', voice: 'alloy' });
  fs.writeFileSync(audioFile, Buffer.from(await speech.arrayBuffer()));
  return speech.headers.get('content-type');
});
await run('filesUpload', async () => {
  const line = JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: user('hi') } });
  const file = await openai.files.create({ file: await toFile(Buffer.from(line), 'batch.jsonl'), purpose: 'batch' });
  const content = await (await openai.files.content(file.id)).text();
  await openai.files.delete(file.id);
  return { purpose: file.purpose, bytes: file.bytes, sameContent: content === line };
});
// openai 7 sends a file stream as a chunked multipart body it writes itself (no Content-Length).
await run('filesUploadStreaming', async () => {
  const file = await openai.files.create({ file: toStreamingFile(fs.createReadStream(audioFile), 'speech.mp3', { type: 'audio/mpeg' }), purpose: 'user_data' });
  await openai.files.delete(file.id);
  return { bytes: file.bytes, filename: file.filename };
});
await run('transcription', async () => {
  const transcription = await openai.audio.transcriptions.create({ model: 'mock/whisper', file: fs.createReadStream(audioFile) });
  return transcription.text;
});
await run('authenticationError', () => thrown(OpenAI.AuthenticationError, () => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-gw-not-a-key', maxRetries: 0 }).chat.completions.create({ model: 'mock/echo', messages: user('hi') })));
await run('notFoundError', () => thrown(OpenAI.NotFoundError, () => openai.chat.completions.create({ model: 'nobody/none', messages: user('hi') })));
await run('messagesStream', async () => {
  const message = await anthropic.messages.stream({ model: 'mock/echo', max_tokens: 100, messages: user('messages on 1.14') }).finalMessage();
  return { text: message.content[0]?.text, stopReason: message.stop_reason };
});
await run('messagesStreamRoutingEvents', async () => {
  const message = await anthropic.messages.stream({ model: 'echo', max_tokens: 100, messages: user('routed messages') }, { headers: { 'X-Gateway-Events': 'routing' } }).finalMessage();
  return message.content[0]?.text;
});
await run('countTokens', async () => (await anthropic.messages.countTokens({ model: 'mock/echo', messages: user('count me') })).input_tokens > 0);
await run('anthropicAuthenticationError', async () => {
  const error = await new Anthropic({ baseURL: url, apiKey: 'sk-gw-not-a-key', maxRetries: 0 }).messages.create({ model: 'mock/echo', max_tokens: 10, messages: user('hi') }).catch((thrownError) => thrownError);
  return { instance: error instanceof Anthropic.AuthenticationError, status: error.status, type: error.error?.error?.type };
});

fs.rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(report));
