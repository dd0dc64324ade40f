/**
 * Bedrock credentials from the AWS SDK's default chain: the real CLI with no keys in its config
 * or environment takes them from a fake ECS container credentials endpoint that hands out
 * short-lived keys and rotates them; the strict Bedrock fake refuses keys it does not know or
 * that have expired. Each gateway gets an explicit environment, nothing of the test machine's.
 */
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { startFakeContainerCredentials, type FakeContainerCredentials, type IssuedKeys } from '../helpers/fake-container-credentials.ts';
import { parseAuthorization } from '../helpers/sigv4-verify.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

const LLAMA = 'meta.llama3-3-70b-instruct-v1:0';
/** No shared files, no IMDS: nothing but what a test gives. */
const BARE_ENV = { AWS_REGION: 'us-east-1', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials', AWS_CONFIG_FILE: '/nonexistent/config', AWS_EC2_METADATA_DISABLED: 'true' };
const config = (baseURL: string, options: Record<string, unknown> = {}) => ({ providers: { bedrock: { plugin: 'bedrock', baseURL, models: [LLAMA], ...options } } });
/** What the `proc` profile's credential_process prints: keys for an hour. */
const PROCESS_KEYS = { accessKeyId: 'ASIAFAKEPROCESS', secretAccessKey: 'process/secret+key', sessionToken: 'FwoGZXIvYXdzPROCESSTOKEN', expiration: new Date(Date.now() + 3_600_000) };

/** A shared config file whose `proc` profile runs a credential_process that logs each run to `runs`. */
function processProfile(): { configFile: string; runs: string } {
  const dir = tempDir('gw-credential-process-');
  const runs = path.join(dir, 'runs.txt');
  const script = path.join(dir, 'print-keys.mjs');
  const { accessKeyId, secretAccessKey, sessionToken, expiration } = PROCESS_KEYS;
  const printed = { Version: 1, AccessKeyId: accessKeyId, SecretAccessKey: secretAccessKey, SessionToken: sessionToken, Expiration: expiration.toISOString() };
  fs.writeFileSync(script, `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(runs)}, 'run\\n');\nconsole.log(${JSON.stringify(JSON.stringify(printed))});\n`);
  const configFile = path.join(dir, 'config');
  fs.writeFileSync(configFile, `[profile proc]\ncredential_process = "${process.execPath}" "${script}"\nregion = us-east-1\n`);
  return { configFile, runs };
}

describe('bedrock credentials from the AWS default chain (real CLI)', () => {
  let fake: FakeBedrock;
  let container: FakeContainerCredentials;
  let gw: SpawnedGateway;
  let bare: SpawnedGateway;
  let proc: SpawnedGateway;
  const profile = processProfile();
  const known: Array<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string; expiration?: Date }> = [PROCESS_KEYS];

  beforeAll(async () => {
    fake = await startFakeBedrock({ region: 'us-east-1', credentials: known });
    // Keys live 3 s and are replaced when less than 2 s are left: a rotation every second.
    container = await startFakeContainerCredentials({ lifetimeMs: 3000, rotateWithinMs: 2000, onIssue: (keys: IssuedKeys) => known.push(keys) });
    [gw, bare, proc] = await Promise.all([
      spawnGateway({ onlyEnv: true, env: { ...BARE_ENV, AWS_CONTAINER_CREDENTIALS_FULL_URI: container.url, AWS_CONTAINER_AUTHORIZATION_TOKEN: container.authorizationToken }, config: config(fake.url) }),
      spawnGateway({ onlyEnv: true, env: BARE_ENV, config: config(fake.url) }),
      spawnGateway({ onlyEnv: true, env: { ...BARE_ENV, AWS_CONFIG_FILE: profile.configFile }, config: config(fake.url, { profile: 'proc' }) }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await bare?.stop();
    await proc?.stop();
    await container?.close();
    await fake?.close();
  });

  it('signs with the container keys valid at the time, rotated twice, without a restart', { timeout: 30_000 }, async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    const signedWith: string[] = [];
    await until('calls signed with three rotated key sets', async () => {
      const chat = await openai.chat.completions.create({ model: `bedrock/${LLAMA}`, messages: [{ role: 'user', content: `call ${signedWith.length}` }] });
      expect(chat.choices[0].message.content).toBe(`Converse heard: call ${signedWith.length}`);
      signedWith.push(parseAuthorization(String(fake.requests.at(-1)!.headers.authorization))!.accessKeyId);
      return new Set(signedWith).size >= 3 ? true : undefined;
    });
    expect(fake.rejections).toEqual([]); // never an unknown, expired or token-less key
    const order = signedWith.map((id) => container.issued.findIndex((k) => k.accessKeyId === id));
    expect(order.every((n) => n >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b)); // never back to older keys
    expect(gw.process.exitCode).toBeNull();
    // No secret of any key set in what the gateway printed.
    const printed = gw.stdout() + gw.stderr();
    for (const keys of container.issued) {
      expect(printed).not.toContain(keys.secretAccessKey);
      expect(printed).not.toContain(keys.sessionToken);
    }
    expect(printed).not.toContain(container.authorizationToken);
  });

  it("runs a config profile's credential_process once and signs every call with its cached keys", async () => {
    const openai = new OpenAI({ baseURL: `${proc.url}/v1`, apiKey: proc.key!, maxRetries: 0 });
    const before = fake.requests.length;
    for (const n of [1, 2, 3]) {
      const chat = await openai.chat.completions.create({ model: `bedrock/${LLAMA}`, messages: [{ role: 'user', content: `process ${n}` }] });
      expect(chat.choices[0].message.content).toBe(`Converse heard: process ${n}`);
    }
    const signedWith = fake.requests.slice(before).map((r) => parseAuthorization(String(r.headers.authorization))!.accessKeyId);
    expect(signedWith).toEqual(['ASIAFAKEPROCESS', 'ASIAFAKEPROCESS', 'ASIAFAKEPROCESS']);
    expect(fs.readFileSync(profile.runs, 'utf8')).toBe('run\n'); // at start-up, then cached: the keys are good for an hour
    expect(proc.stdout() + proc.stderr()).not.toContain(PROCESS_KEYS.secretAccessKey);
  });

  it('with no source at all: a start-up warning, and 502 provider_error in each client’s format', async () => {
    await until('the start-up warning', async () => (/no AWS credentials from the AWS default chain/.test(bare.stdout() + bare.stderr()) ? true : undefined));
    const before = fake.requests.length;
    const openai = new OpenAI({ baseURL: `${bare.url}/v1`, apiKey: bare.key!, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: `bedrock/${LLAMA}`, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.APIError);
    expect((chat as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((chat as InstanceType<typeof OpenAI.APIError>).message).toMatch(/No AWS credentials for Bedrock/);
    const anthropic = new Anthropic({ baseURL: bare.url, apiKey: bare.key!, maxRetries: 0 });
    const messages = await anthropic.messages.create({ model: `bedrock/${LLAMA}`, max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).then(() => undefined, (e: unknown) => e);
    expect(messages).toBeInstanceOf(Anthropic.APIError);
    expect((messages as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect(((messages as InstanceType<typeof Anthropic.APIError>).error as { type: string }).type).toBe('error');
    expect(fake.requests.length).toBe(before); // nothing unsigned went upstream
  });
});
