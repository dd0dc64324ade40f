// The bedrock plugin puts its region into the endpoint's host name (bedrock-runtime.{region}.amazonaws.com):
// a region from AWS_REGION, AWS_DEFAULT_REGION or a profile is held to the shape of an AWS region first,
// as the `region` option is, so a value such as `x@127.0.0.1:9/` cannot send the signed calls to another host.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import bedrockPlugin from '../../../plugins/bedrock/index.ts';
import type { HttpClientFactory } from '../../../src/plugin-kit/index.ts';
import { DEFAULT_TIMEOUTS, UndiciHttpFactory } from '../../../src/upstream/index.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

const VARIABLES = ['AWS_REGION', 'AWS_DEFAULT_REGION', 'AWS_PROFILE', 'AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_BEARER_TOKEN_BEDROCK'] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const dir = tempDir('gw-bedrock-region-');
const configFile = path.join(dir, 'config');
fs.writeFileSync(configFile, '[default]\nregion = evil.example/x#\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = profile-secret-key\n');

/** Sets the plugin up with `env` (a Bedrock API key unless `apiKey` is empty: no credential chain) and returns the origin it would call and what it warned. */
async function setUp(env: Record<string, string>, region?: string, apiKey = 'ABSKtestkey'): Promise<{ origin: string; warned: string[] }> {
  for (const name of VARIABLES) delete process.env[name];
  Object.assign(process.env, { AWS_CONFIG_FILE: path.join(dir, 'none'), AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none') }, env);
  const warned: string[] = [];
  const origins: string[] = [];
  const real = new UndiciHttpFactory(DEFAULT_TIMEOUTS);
  const http: HttpClientFactory = { ...real, client: (origin: string) => (origins.push(origin), real.client(origin)) } as HttpClientFactory;
  const log = { info: () => undefined, warn: (message: string) => void warned.push(message) };
  const options = bedrockPlugin.options!.parse(region === undefined ? {} : { region });
  const instance = await bedrockPlugin.setup({ id: 'br', baseURL: undefined, apiKey: apiKey || undefined, headers: {}, timeouts: DEFAULT_TIMEOUTS, options, http, log });
  await instance.close?.();
  await real.closeAll();
  return { origin: origins[0], warned };
}

describe("the bedrock plugin's region", () => {
  it('a region from the environment is used when it is one', async () => {
    expect((await setUp({ AWS_REGION: 'eu-west-3' })).origin).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
    expect((await setUp({ AWS_DEFAULT_REGION: 'us-gov-west-1' })).origin).toBe('https://bedrock-runtime.us-gov-west-1.amazonaws.com');
    expect((await setUp({ AWS_REGION: 'ap-southeast-5' }, 'eu-central-1')).origin).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com');
  });

  it.each([
    ['AWS_REGION', 'x@127.0.0.1:9/'],
    ['AWS_REGION', 'us-east-1.evil.example/'],
    ['AWS_DEFAULT_REGION', '127.0.0.1#'],
  ])('%s=%j is not a region: warned and passed over, never put into the host name', async (name, value) => {
    const { origin, warned } = await setUp({ [name]: value });
    expect(origin).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
    expect(warned.join('\n')).toContain(`${name} '${value}' is not an AWS region`);
  });

  it('the next source is read after a bad one; a profile region is held to the same shape', async () => {
    expect((await setUp({ AWS_REGION: 'not a region', AWS_DEFAULT_REGION: 'eu-north-1' })).origin).toBe('https://bedrock-runtime.eu-north-1.amazonaws.com');
    // The profile's keys and its region (read with them: no API key).
    const { origin, warned } = await setUp({ AWS_CONFIG_FILE: configFile }, undefined, '');
    expect(origin).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
    expect(warned.join('\n')).toContain("the profile's region 'evil.example/x#' is not an AWS region");
  });
});
