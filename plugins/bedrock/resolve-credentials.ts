// Where the plugin's AWS identity comes from, in the order the AWS SDKs use for the same sources.
import { loadSharedConfigFiles } from '@smithy/core/config';
import type { BedrockOptions } from './options.ts';

/** AWS access keys (temporary ones carry a session token). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How calls are authenticated: a Bedrock API key (`Authorization: Bearer`) or SigV4 with access keys. */
export type BedrockAuth = { kind: 'bearer'; token: string; source: string } | { kind: 'sigv4'; credentials: AwsCredentials; source: string } | { kind: 'none'; source: string };

export interface ResolvedIdentity {
  auth: BedrockAuth;
  /** The region of the profile, when one was read (a fallback after options and environment). */
  profileRegion?: string;
}

type Env = Record<string, string | undefined>;

/**
 * The first of: the config's `apiKey` (Bedrock API key), the config's access keys, the config's
 * `profile`, AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY(/AWS_SESSION_TOKEN),
 * the shared files' profile (AWS_PROFILE, else `default`). Throws when none gives an identity.
 */
export async function resolveIdentity(options: BedrockOptions, apiKey: string | undefined, env: Env = process.env): Promise<ResolvedIdentity> {
  if (apiKey) return { auth: { kind: 'bearer', token: apiKey, source: 'config apiKey' } };
  if (options.accessKeyId && options.secretAccessKey) {
    return { auth: { kind: 'sigv4', credentials: defined({ accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey, sessionToken: options.sessionToken }), source: 'config access keys' } };
  }
  if (options.profile) return readProfile(options.profile, true);
  if (env.AWS_BEARER_TOKEN_BEDROCK) return { auth: { kind: 'bearer', token: env.AWS_BEARER_TOKEN_BEDROCK, source: 'AWS_BEARER_TOKEN_BEDROCK' } };
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    return { auth: { kind: 'sigv4', credentials: defined({ accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined }), source: 'environment' } };
  }
  return readProfile(env.AWS_PROFILE || 'default', Boolean(env.AWS_PROFILE));
}

/** Access keys and region of a profile in ~/.aws/credentials and ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE). */
async function readProfile(name: string, named: boolean): Promise<ResolvedIdentity> {
  const files = await loadSharedConfigFiles({ ignoreCache: true });
  const fromCredentials = files.credentialsFile[name] ?? {};
  const fromConfig = files.configFile[name] ?? {};
  const key = fromCredentials.aws_access_key_id ?? fromConfig.aws_access_key_id;
  const secret = fromCredentials.aws_secret_access_key ?? fromConfig.aws_secret_access_key;
  if (!key || !secret) {
    const where = named ? `the profile '${name}' has no aws_access_key_id/aws_secret_access_key` : 'no apiKey, access keys, AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID or default profile';
    throw new Error(`no AWS credentials: ${where} (docs/providers.md, Bedrock)`);
  }
  const token = fromCredentials.aws_session_token ?? fromConfig.aws_session_token;
  return {
    auth: { kind: 'sigv4', credentials: defined({ accessKeyId: key, secretAccessKey: secret, sessionToken: token }), source: `profile ${name}` },
    profileRegion: fromConfig.region ?? fromCredentials.region,
  };
}

function defined(c: AwsCredentials): AwsCredentials {
  return c.sessionToken ? c : { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
}
