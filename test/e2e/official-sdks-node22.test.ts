/**
 * The newest official SDKs as users on Node 22 and 24 run them: openai 7 (it needs Node 22; the
 * root's openai 6 is what the other tests use) and @anthropic-ai/sdk 1.14, pinned in
 * test/clients under aliased names, run by test/clients/official-sdks.mjs under each Node 22+
 * binary of GATEWAY_TEST_NODE_BINS (`.ci/run` lists 22 and 24) against the gateway running on
 * that same binary. Without such a binary (and on a Node older than 22) the suite fails, saying
 * so, rather than skipping: the SDK cannot run on the Node that runs the tests.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { CLIENTS_DIR, ensureTestClients } from '../helpers/test-clients.ts';

const major = (binary: string) => Number(/^v(\d+)\./.exec(execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim())?.[1] ?? 0);
const given = (process.env.GATEWAY_TEST_NODE_BINS ?? '').split(':').filter(Boolean);
const nodes = (given.length > 0 ? given : [process.execPath]).filter((binary) => major(binary) >= 22);

it('has a Node 22+ to run openai 7 under', () => {
  expect(nodes, `openai 7 needs Node 22+: list Node 22 and 24 binaries in GATEWAY_TEST_NODE_BINS (colon-separated; .ci/run installs them), this Node is ${process.version}`).not.toEqual([]);
});

describe.each(nodes)('openai 7 and @anthropic-ai/sdk 1.14 under %s', (binary) => {
  let gw: SpawnedGateway;

  beforeAll(async () => {
    await ensureTestClients();
    gw = await spawnGateway({
      nodeBinary: binary,
      config: {
        providers: {
          // Bare `echo` tries `down` first (it always answers 503), then `mock`: a fallback for the routing events.
          down: { plugin: 'mock', failFirst: 1_000_000_000, failStatus: 503, priority: 1 },
          mock: { plugin: 'mock', priority: 2 },
        },
        routing: { retry: { baseMs: 5 }, breaker: { failureThreshold: 1_000_000 } },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
  });

  it('chat, responses, multipart uploads, errors and Messages work as the SDKs expect', async () => {
    const run = await execa(binary, [path.join(CLIENTS_DIR, 'official-sdks.mjs')], {
      env: { GATEWAY_URL: gw.url, GATEWAY_KEY: gw.key! },
      reject: false,
      timeout: 120_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(Number(/^v(\d+)/.exec(String(report.node))?.[1])).toBeGreaterThanOrEqual(22);
    const requestId = expect.stringMatching(/^req_/);
    expect(report).toEqual({
      node: expect.any(String),
      openai: '7.59.0',
      anthropic: '1.14.0',
      chat: { text: 'chat on v7', requestId },
      chatStream: { text: 'chat stream on v7', usage: true },
      chatStreamHelper: 'helper on v7',
      responses: { text: 'responses on v7', status: 'completed', retrieved: 'responses on v7' },
      responsesStream: { text: 'responses stream on v7', status: 'completed' },
      responsesStreamRoutingEvents: { text: 'routed on v7', status: 'completed' },
      chatStreamRoutingEvents: 'routed chat on v7',
      speech: 'audio/mpeg',
      filesUpload: { purpose: 'batch', bytes: expect.any(Number), sameContent: true },
      filesUploadStreaming: { bytes: expect.any(Number), filename: 'speech.mp3' },
      transcription: 'hello from v7',
      authenticationError: { instance: true, class: 'AuthenticationError', status: 401, code: 'invalid_api_key', type: 'authentication_error', param: null, requestId },
      notFoundError: { instance: true, class: 'NotFoundError', status: 404, code: 'model_not_found', type: 'invalid_request_error', param: null, requestId },
      messagesStream: { text: 'messages on 1.14', stopReason: 'end_turn' },
      messagesStreamRoutingEvents: 'routed messages',
      countTokens: true,
      anthropicAuthenticationError: { instance: true, status: 401, type: 'authentication_error' },
    });
    expect((report.filesUploadStreaming as { bytes: number }).bytes).toBeGreaterThan(0);
  });
});
