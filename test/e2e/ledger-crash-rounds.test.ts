import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
let lingering: FakeUpstream | undefined;
afterAll(async () => {
  for (const g of running) await g.kill();
  await lingering?.close();
});

const PRICING = { input: 1000, output: 1000 }; // 1 credit per input and per output token
const INITIAL_CREDITS = 1_000_000;
const CONCURRENT = 200;
/** How long the lingering upstream keeps its body open after its last record. */
const LINGER_MS = 400;

type Kind = 'chat' | 'chat-stream' | 'messages-stream' | 'responses-stream' | 'lingering-stream';
const KINDS: Kind[] = ['chat', 'chat-stream', 'messages-stream', 'responses-stream', 'lingering-stream'];

/**
 * A Chat upstream that sends its whole answer, [DONE] included, then keeps the body open a
 * while: the client has the complete answer long before the upstream's body ends, so the
 * charge must be recorded at the last record, not at the end of the body.
 */
async function startLingeringUpstream(): Promise<FakeUpstream> {
  return startFakeUpstream((request) => {
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id: 'chatcmpl-linger', object: 'chat.completion.chunk', created: 1, model: 'linger', choices: [{ index: 0, delta, finish_reason: finish }] });
    const records = chatSse([
      chunk({ role: 'assistant', content: '' }, null),
      chunk({ content: `echo ${String(request.body.length)}` }, null),
      chunk({}, 'stop'),
      { id: 'chatcmpl-linger', object: 'chat.completion.chunk', created: 1, model: 'linger', choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } },
    ]);
    return { headers: { 'content-type': 'text/event-stream' }, sse: [records.join(''), ''], delayMs: LINGER_MS };
  });
}

interface Outcome {
  status: number | undefined;
  requestId: string | undefined;
  /** The whole answer arrived (JSON parsed, or the stream's terminal event). */
  complete: boolean;
}

function requestFor(kind: Kind, text: string): { path: string; body: Record<string, unknown> } {
  switch (kind) {
    case 'chat':
      return { path: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: text }], max_tokens: 64 } };
    case 'chat-stream':
      return { path: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: text }], max_tokens: 64, stream: true } };
    case 'messages-stream':
      return { path: '/v1/messages', body: { model: 'mock/echo', messages: [{ role: 'user', content: text }], max_tokens: 64, stream: true } };
    case 'responses-stream':
      return { path: '/v1/responses', body: { model: 'mock/echo', input: text, max_output_tokens: 64, stream: true } };
    case 'lingering-stream':
      return { path: '/v1/chat/completions', body: { model: 'slow/linger', messages: [{ role: 'user', content: text }], max_tokens: 64, stream: true } };
  }
}

const TERMINAL: Record<Kind, string> = {
  chat: '',
  'chat-stream': 'data: [DONE]',
  'messages-stream': 'event: message_stop',
  'responses-stream': 'event: response.completed',
  'lingering-stream': 'data: [DONE]',
};

async function send(url: string, key: string, kind: Kind, text: string, onDone: () => void): Promise<Outcome> {
  const { path: route, body } = requestFor(kind, text);
  let status: number | undefined;
  let requestId: string | undefined;
  try {
    const res = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    status = res.status;
    requestId = res.headers.get('x-request-id') ?? undefined;
    if (kind === 'chat') {
      const complete = Boolean((JSON.parse(await res.text()) as { usage?: unknown }).usage);
      if (complete) onDone();
      return { status, requestId, complete };
    }
    // A stream is complete for its client at its terminal event, as an SDK reads it (the
    // connection may stay open after it).
    let text = '';
    let complete = false;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) {
        text += decoder.decode(chunk, { stream: true });
        if (!complete && text.includes(TERMINAL[kind])) {
          complete = true;
          onDone();
        }
      }
    } catch {
      // killed after the terminal event: the answer was still complete for the client
    }
    return { status, requestId, complete };
  } catch {
    // the gateway was killed before the whole answer arrived
    return { status, requestId, complete: false };
  }
}

interface LedgerLine {
  request_id: string;
  charged_credits: number;
}

function readLedger(dataDir: string): LedgerLine[] {
  const text = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerLine);
}

async function balance(g: SpawnedGateway, key: string): Promise<number> {
  const res = await fetch(`${g.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { credits: { balance: number } } }).data.credits.balance;
}

describe('kill -9 under 200 concurrent billed requests, three rounds', () => {
  it('every complete 200 answer has exactly one ledger line, and the balance drop is the ledger sum', async () => {
    lingering = await startLingeringUpstream();
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        // Streams slow enough to be cut by the kill.
        mock: { plugin: 'mock', chunkDelayMs: 3, models: [{ id: 'echo', pricing: PRICING }] },
        slow: { plugin: 'openai', baseURL: `${lingering.url}/v1`, apiKey: 'up-key', formats: ['chat'], models: [{ id: 'linger', pricing: PRICING }] },
      },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'load@example.test', '--credits', String(INITIAL_CREDITS), '--tier', 'enterprise'])).exitCode).toBe(0);
    const key = (JSON.parse(String((await cli(['keys', 'create', '--account', 'load@example.test', '--json'])).stdout)) as { key: string }).key;

    const completedIds = new Set<string>();
    // Kill after different numbers of complete answers, so each round cuts at another point.
    for (const [round, killAfter] of [30, 80, 130].entries()) {
      const g = await spawnGateway({ configFile, dataDir });
      running.push(g);
      const ledgerBefore = readLedgerSafe(dataDir);
      expect(await balance(g, key)).toBeCloseTo(INITIAL_CREDITS - sum(ledgerBefore), 6);

      let done = 0;
      let killed: Promise<void> | undefined;
      const outcomes = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) =>
          send(g.url, key, KINDS[i % KINDS.length], `round ${round} request ${i} `.repeat(1 + (i % 5)), () => {
            done += 1;
            if (done === killAfter) killed = g.kill();
          }),
        ),
      );
      await (killed ?? g.kill());

      const lines = readLedger(dataDir);
      const byRequest = new Map<string, number>();
      for (const line of lines) byRequest.set(line.request_id, (byRequest.get(line.request_id) ?? 0) + 1);
      // No request is ever billed twice.
      expect([...byRequest.values()].filter((n) => n > 1)).toEqual([]);
      const complete = outcomes.filter((o) => o.status === 200 && o.complete);
      expect(complete.length).toBeGreaterThanOrEqual(killAfter);
      for (const o of complete) {
        expect(o.requestId).toBeDefined();
        completedIds.add(o.requestId!);
      }
      const missing = complete.filter((o) => byRequest.get(o.requestId!) !== 1).map((o) => o.requestId);
      expect(missing).toEqual([]);
    }

    // After the last kill: the restarted gateway's balance drop is exactly what the ledger holds.
    const last = await spawnGateway({ configFile, dataDir });
    running.push(last);
    const lines = readLedger(dataDir);
    expect(lines.length).toBeGreaterThanOrEqual(completedIds.size);
    expect(INITIAL_CREDITS - (await balance(last, key))).toBeCloseTo(sum(lines), 6);
    await last.stop();
  }, 240_000);
});

function readLedgerSafe(dataDir: string): LedgerLine[] {
  return fs.existsSync(path.join(dataDir, 'usage.jsonl')) ? readLedger(dataDir) : [];
}

function sum(lines: LedgerLine[]): number {
  return lines.reduce((n, l) => n + (l.charged_credits ?? 0), 0);
}
