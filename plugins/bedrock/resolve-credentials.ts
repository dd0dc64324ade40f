// Where the plugin's AWS identity comes from, in the order the AWS SDKs use for the same sources.
import { loadSharedConfigFiles } from '@smithy/core/config';
import { GatewayError, rememberSecret } from 'gateway/plugin-kit';
import type { BedrockOptions } from './options.ts';

/** AWS access keys (temporary ones carry a session token and, from a chain, their expiry). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** The keys to sign with now: asked before every signature, so a refreshing source hands out fresh ones. */
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/** Makes the AWS SDK's default provider chain, for a named profile or AWS_PROFILE's (undefined). */
export type ChainFactory = (profile: string | undefined) => AwsCredentialsProvider;

/** How calls are authenticated: a Bedrock API key (`Authorization: Bearer`) or SigV4 with access keys. */
export type BedrockAuth = { kind: 'bearer'; token: string; source: string } | { kind: 'sigv4'; credentials: AwsCredentialsProvider; source: string } | { kind: 'none'; source: string };

export interface ResolvedIdentity {
  auth: BedrockAuth;
  /** The region of the profile, when one was read (a fallback after options and environment). */
  profileRegion?: string;
}

type Env = Record<string, string | undefined>;

/**
 * The first of: the config's `apiKey` (Bedrock API key), the config's access keys, the config's
 * `profile`, AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY(/AWS_SESSION_TOKEN),
 * the shared files' profile (AWS_PROFILE, else `default`). A profile without static keys, or none,
 * leaves it to the AWS SDK's default chain (SSO, credential_process, web identity, ECS, IMDS).
 */
export async function resolveIdentity(options: BedrockOptions, apiKey: string | undefined, env: Env = process.env, chain: ChainFactory = defaultChain): Promise<ResolvedIdentity> {
  if (apiKey) return { auth: { kind: 'bearer', token: apiKey, source: 'config apiKey' } };
  if (options.accessKeyId && options.secretAccessKey) {
    return { auth: staticKeys({ accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey, sessionToken: options.sessionToken }, 'config access keys') };
  }
  if (options.profile) return readProfile(env, options.profile, options.profile, chain);
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { auth: { kind: 'bearer', token: env.AWS_BEARER_TOKEN_BEDROCK, source: 'AWS_BEARER_TOKEN_BEDROCK' } };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { auth: staticKeys({ accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined }, 'environment') };
  }
  return readProfile(env, env.AWS_PROFILE || 'default', env.AWS_PROFILE || undefined, chain);
}

/**
 * A profile's static keys and region in ~/.aws/credentials and ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE,
 * AWS_CONFIG_FILE), read once; without static keys, the default chain for `chainProfile`.
 */
async function readProfile(env: Env, name: string, chainProfile: string | undefined, chain: ChainFactory): Promise<ResolvedIdentity> {
  const files = await loadSharedConfigFiles({ ignoreCache: true, filepath: env.AWS_SHARED_CREDENTIALS_FILE, configFilepath: env.AWS_CONFIG_FILE });
  const fromCredentials = files.credentialsFile[name] ?? {};
  const fromConfig = files.configFile[name] ?? {};
  const profileRegion = fromConfig.region ?? fromCredentials.region;
  const key = fromCredentials.aws_access_key_id ?? fromConfig.aws_access_key_id;
  const secret = fromCredentials.aws_secret_access_key ?? fromConfig.aws_secret_access_key;
  if (!key || !secret) {
    const source = chainProfile ? `AWS default chain (profile ${chainProfile})` : 'AWS default chain';
    return { auth: { kind: 'sigv4', credentials: remembering(chain(chainProfile), Date.now, true), source }, profileRegion };
  }
  const token = fromCredentials.aws_session_token ?? fromConfig.aws_session_token;
  return { auth: staticKeys({ accessKeyId: key, secretAccessKey: secret, sessionToken: token }, `profile ${name}`), profileRegion };
}

function staticKeys(c: AwsCredentials, source: string): BedrockAuth {
  const credentials: AwsCredentials = c.sessionToken ? c : { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
  return { kind: 'sigv4', credentials: remembering(() => Promise.resolve(credentials)), source };
}

/** How long a chain that found no credentials is taken at its word before it is asked again. */
export const NO_CREDENTIALS_RETRY_MS = 10_000;

/**
 * The provider's keys, their secrets remembered for redaction as they come, and a chain that finds
 * none turned into a `provider_error` (502 in the client's format). A chain's keys are `rotating`:
 * remembered as transient values (new ones every rotation, for months: only the newest are kept),
 * again at every ask so the keys in use stay among the newest.
 */
export function remembering(provider: AwsCredentialsProvider, now: () => number = Date.now, rotating = false): AwsCredentialsProvider {
  let last: AwsCredentials | undefined;
  // A chain that found nothing is not asked again for a while: off EC2 each ask waits for the
  // metadata service's timeout (~1 s), and every call would wait for it before its 502.
  let failed: { message: string; cause: unknown; until: number } | undefined;
  const refuse = (f: { message: string; cause: unknown }) => new GatewayError('provider_error', f.message, { cause: f.cause });
  return async () => {
    if (failed && now() < failed.until) throw refuse(failed);
    let keys: AwsCredentials;
    try {
      keys = await provider();
    } catch (error) {
      // Retryable: another provider may serve the call. Chain messages name sources, never secrets.
      failed = { message: `No AWS credentials for Bedrock: ${firstLine(error)}`, cause: error, until: now() + NO_CREDENTIALS_RETRY_MS };
      throw refuse(failed);
    }
    failed = undefined;
    // A chain's keys are remembered again at every ask (before every signature): each signed call
    // adds new transient values (its Authorization), which would push the keys in use out.
    if (keys !== last || rotating) {
      rememberSecret(keys.secretAccessKey, rotating);
      rememberSecret(keys.sessionToken, rotating);
      last = keys;
    }
    return keys;
  };
}

/** The first line of an error's message, bounded. */
export function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0].slice(0, 300);
}

/**
 * The AWS SDK's default provider chain, imported on first use (start-up and --help never load it
 * otherwise). It caches the keys, fetches new ones in the background from 5 minutes before they
 * expire, and drops them once expired.
 */
export const defaultChain: ChainFactory = (profile) => {
  let chain: Promise<AwsCredentialsProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then(({ defaultProvider }) => defaultProvider(profile ? { profile } : {}));
    return (await chain)();
  };
};
