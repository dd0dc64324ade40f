/**
 * What the benchmark sends. Each case says what a client sends to the gateway, and what the
 * floor targets (the fake upstream itself, the pass-through proxy) get for the same upstream
 * work: those only speak Chat Completions, so a conversion case compares against the Chat
 * request that makes the upstream do the same thing.
 */
import { UPSTREAM_MODEL } from './fake-upstream.ts';

export interface CaseRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** A regex the end of every response body must match. */
  expect: string;
}

export interface BenchCase {
  name: string;
  description: string;
  stream: boolean;
  /** The request to the gateway, given its API key and the model to ask for. */
  gateway: (key: string, model: string) => CaseRequest;
  /** The request to the fake upstream and the pass-through proxy. */
  floor: CaseRequest;
}

const SYSTEM = 'You are a helpful assistant. Answer in one short sentence.';
const USER = 'Write one sentence about a quick brown fox.';

function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: USER },
    ],
    ...(stream ? { stream: true } : {}),
  });
}

const json = { 'content-type': 'application/json' };
const bearer = (key: string) => ({ ...json, authorization: `Bearer ${key}` });

const CHAT_EXPECT = '"finish_reason"[\\s\\S]*\\}\\s*$';
const CHAT_STREAM_EXPECT = 'data: \\[DONE\\]\\s*$';

const chatStreamFloor: CaseRequest = { path: '/v1/chat/completions', headers: bearer('x'), body: chatBody(UPSTREAM_MODEL, true), expect: CHAT_STREAM_EXPECT };

/** Every case the bench knows, by name. */
export const CASES: Record<string, BenchCase> = {
  chat: {
    name: 'chat',
    description: 'Chat Completions, non-streaming (same format: passthrough)',
    stream: false,
    gateway: (key, model) => ({ path: '/v1/chat/completions', headers: bearer(key), body: chatBody(model, false), expect: CHAT_EXPECT }),
    floor: { path: '/v1/chat/completions', headers: bearer('x'), body: chatBody(UPSTREAM_MODEL, false), expect: CHAT_EXPECT },
  },
  'chat-stream': {
    name: 'chat-stream',
    description: 'Chat Completions, streaming, 20 content chunks (same format: passthrough)',
    stream: true,
    gateway: (key, model) => ({ path: '/v1/chat/completions', headers: bearer(key), body: chatBody(model, true), expect: CHAT_STREAM_EXPECT }),
    floor: chatStreamFloor,
  },
  'messages-stream': {
    name: 'messages-stream',
    description: 'Anthropic Messages client → Chat upstream, streaming (conversion); floor = the Chat stream',
    stream: true,
    gateway: (key, model) => ({
      path: '/v1/messages',
      headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, max_tokens: 1024, system: SYSTEM, messages: [{ role: 'user', content: USER }], stream: true }),
      expect: 'message_stop[\\s\\S]*$',
    }),
    floor: chatStreamFloor,
  },
};

export const DEFAULT_CASES = ['chat', 'chat-stream', 'messages-stream'];
