// Where the bedrock plugin's identity comes from: the explicit sources in their order, static
// profile keys, and the AWS default chain (a factory given here) for everything else.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeCredentials } from '../../../plugins/bedrock/probe-credentials.ts';
import { NO_CREDENTIALS_RETRY_MS, remembering, resolveIdentity, type AwsCredentials, type BedrockAuth, type ChainFactory } from '../../../plugins/bedrock/resolve-credentials.ts';
import { isGatewayError } from '../../../src/errors/index.ts';
import { redactSecrets } from '../../../src/util/index.ts';
import { forgetSecrets, isRememberedSecret, MAX_SECRETS, rememberSecret, rememberSecretHeader } from '../../../src/util/redact-secrets.ts';
import { tempDir } from '../../helpers/spawn-gateway.ts';

const dir = tempDir('gw-bedrock-creds-');
const credentialsFile = path.join(dir, 'credentials');
const configFile = path.join(dir, 'config');
fs.writeFileSync(credentialsFile, '[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = default-secret-key\n\n[static]\naws_access_key_id = AKIASTATIC\naws_secret_access_key = static-secret-key\naws_session_token = static-session-token\n');
fs.writeFileSync(configFile, '[profile static]\nregion = eu-west-3\n\n[profile sso]\nsso_session = corp\nregion = ap-south-1\n');
const FILES = { AWS_SHARED_CREDENTIALS_FILE: credentialsFile, AWS_CONFIG_FILE: configFile };
const NO_FILES = { AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'none'), AWS_CONFIG_FILE: path.join(dir, 'none') };
const ENV_KEYS = { AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 'env-secret-key' };

/** A stand-in for the AWS SDK's chain: says which profile it was made for and hands out `keys`. */
function chainOf(keys: AwsCredentials | Error): { made: Array<string | undefined>; chain: ChainFactory } {
  const made: Array<string | undefined> = [];
  return { made, chain: (profile) => (made.push(profile), () => (keys instanceof Error ? Promise.reject(keys) : Promise.resolve(keys))) };
}

async function keysOf(auth: BedrockAuth): Promise<AwsCredentials | string> {
  if (auth.kind === 'sigv4') return auth.credentials();
  return auth.kind === 'bearer' ? auth.token : 'none';
}

const CHAIN_KEYS = { accessKeyId: 'ASIACHAIN', secretAccessKey: 'chain-secret-key-1', sessionToken: 'chain-session-token-1', expiration: new Date(Date.now() + 3_600_000) };

describe('bedrock identity resolution', () => {
  it('takes the explicit sources first, in order: apiKey, config keys, config profile, AWS_BEARER_TOKEN_BEDROCK, env keys, AWS_PROFILE / default profile', async () => {
    const { made, chain } = chainOf(CHAIN_KEYS);
    const all = { ...FILES, ...ENV_KEYS, AWS_BEARER_TOKEN_BEDROCK: 'ABSKenvbearer', AWS_PROFILE: 'static' };
    const configKeys = { accessKeyId: 'AKIACONFIG', secretAccessKey: 'config-secret-key' };
    const steps: Array<[Parameters<typeof resolveIdentity>[0], string | undefined, Record<string, string>, string, AwsCredentials | string]> = [
      [{ ...configKeys, profile: 'static' }, 'ABSKconfigkey', all, 'config apiKey', 'ABSKconfigkey'],
      [{ ...configKeys, profile: 'static' }, undefined, all, 'config access keys', configKeys],
      [{ profile: 'static' }, undefined, all, 'profile static', { accessKeyId: 'AKIASTATIC', secretAccessKey: 'static-secret-key', sessionToken: 'static-session-token' }],
      [{}, undefined, all, 'AWS_BEARER_TOKEN_BEDROCK', 'ABSKenvbearer'],
      [{}, undefined, { ...FILES, ...ENV_KEYS, AWS_SESSION_TOKEN: 'env-session-token', AWS_PROFILE: 'static' }, 'environment', { accessKeyId: 'AKIAENV', secretAccessKey: 'env-secret-key', sessionToken: 'env-session-token' }],
      [{}, undefined, { ...FILES, AWS_PROFILE: 'static' }, 'profile static', { accessKeyId: 'AKIASTATIC', secretAccessKey: 'static-secret-key', sessionToken: 'static-session-token' }],
      [{}, undefined, FILES, 'profile default', { accessKeyId: 'AKIADEFAULT', secretAccessKey: 'default-secret-key' }],
    ];
    for (const [options, apiKey, env, source, keys] of steps) {
      const { auth } = await resolveIdentity(options, apiKey, env, chain);
      expect(auth.source, source).toBe(source);
      expect(await keysOf(auth), source).toEqual(keys);
    }
    expect(made).toEqual([]); // static keys never load the chain
  });

  it('leaves a profile without static keys, or no source at all, to the AWS default chain', async () => {
    const { made, chain } = chainOf(CHAIN_KEYS);
    const named = await resolveIdentity({ profile: 'sso' }, undefined, { ...FILES, ...ENV_KEYS }, chain);
    expect(named).toMatchObject({ auth: { kind: 'sigv4', source: 'AWS default chain (profile sso)' }, profileRegion: 'ap-south-1' });
    const fromEnv = await resolveIdentity({}, undefined, { ...FILES, AWS_PROFILE: 'sso' }, chain);
    expect(fromEnv.auth.source).toBe('AWS default chain (profile sso)');
    const nothing = await resolveIdentity({}, undefined, NO_FILES, chain);
    expect(nothing.auth.source).toBe('AWS default chain');
    expect(made).toEqual(['sso', 'sso', undefined]);
    expect(await keysOf(nothing.auth)).toEqual(CHAIN_KEYS);
  });

  it("remembers the chain's secrets for redaction, and turns a chain that finds nothing into provider_error", async () => {
    const { chain } = chainOf(CHAIN_KEYS);
    const { auth } = await resolveIdentity({}, undefined, NO_FILES, chain);
    await keysOf(auth);
    expect(redactSecrets('chain-secret-key-1 chain-session-token-1 ASIACHAIN')).toBe('[redacted] [redacted] ASIACHAIN');
    const failing = chainOf(new Error('Could not load credentials from any providers'));
    const none = await resolveIdentity({}, undefined, NO_FILES, failing.chain);
    const error = await keysOf(none.auth).then(() => undefined, (e: unknown) => e);
    expect(isGatewayError(error) && error.code).toBe('provider_error');
    expect((error as Error).message).toBe('No AWS credentials for Bedrock: Could not load credentials from any providers');
  });

  it('a chain that found nothing is asked again only after NO_CREDENTIALS_RETRY_MS (no metadata-service wait per call), then its new keys are used', async () => {
    let asked = 0;
    let keys: AwsCredentials | undefined;
    let clock = 1_000;
    const provider = remembering(() => {
      asked += 1;
      return keys ? Promise.resolve(keys) : Promise.reject(new Error('Could not load credentials from any providers'));
    }, () => clock);
    for (let i = 0; i < 3; i += 1) {
      const error = await provider().then(() => undefined, (e: unknown) => e);
      expect(isGatewayError(error) && error.code).toBe('provider_error');
    }
    expect(asked).toBe(1);
    keys = CHAIN_KEYS;
    clock += NO_CREDENTIALS_RETRY_MS;
    expect(await provider()).toBe(CHAIN_KEYS);
    expect(asked).toBe(2);
  });

  it("a chain's keys, rotated for months, are remembered as transient values: the newest redacted, the old ones dropped, the configured keys kept", async () => {
    const CONFIGURED = 'configured-upstream-api-key-0123';
    rememberSecret(CONFIGURED);
    let n = 0;
    const chain: ChainFactory = () => async () => ({ accessKeyId: `ASIA${n}`, secretAccessKey: `rotated-secret-${n}`, sessionToken: `rotated-token-${n}` });
    const { auth } = await resolveIdentity({}, undefined, NO_FILES, chain);
    for (n = 0; n < MAX_SECRETS; n += 1) await keysOf(auth);
    n -= 1;
    expect(redactSecrets(`rotated-secret-${n} rotated-token-${n} ${CONFIGURED}`)).toBe('[redacted] [redacted] [redacted]');
    expect(isRememberedSecret('rotated-secret-0')).toBe(false); // bounded: not one more value a rotation, for good
    forgetSecrets();
  });

  it("the chain's keys in use stay redacted however many calls they sign (each call's signed headers are new transient values)", async () => {
    const { chain } = chainOf(CHAIN_KEYS);
    const { auth } = await resolveIdentity({}, undefined, NO_FILES, chain);
    // What a signed call does: ask for the keys, then the HTTP client remembers its new Authorization (and the part after the space).
    for (let call = 0; call < MAX_SECRETS; call += 1) {
      await keysOf(auth);
      rememberSecretHeader(`AWS4-HMAC-SHA256 Credential=ASIACHAIN/${call}, Signature=${call.toString(16).padStart(64, '0')}`, true);
    }
    expect(redactSecrets('chain-secret-key-1 chain-session-token-1')).toBe('[redacted] [redacted]');
    forgetSecrets();
  });

  it('probes at start-up for at most its bound, and warns when the chain fails, even later', async () => {
    const warned: string[] = [];
    let fail: (error: Error) => void = () => undefined;
    const slow = () => new Promise<AwsCredentials>((_resolve, reject) => (fail = reject));
    const started = Date.now();
    await probeCredentials(slow, 'AWS default chain', (m) => warned.push(m), 50);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(warned).toEqual([]);
    fail(new Error('EC2 Instance Metadata Service access disabled'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(warned).toEqual([expect.stringMatching(/^no AWS credentials from the AWS default chain \(EC2 Instance Metadata Service access disabled\)/)]);
  });
});

