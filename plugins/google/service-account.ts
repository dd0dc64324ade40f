import fs from 'node:fs';

/** The fields of a Google service-account key file the token flow reads. */
export interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId?: string;
  /** Where access tokens are minted (the key file's `token_uri`). */
  tokenUri: string;
  projectId?: string;
}

const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** A key given as a path, as JSON text or as the object; undefined when none is given. */
function readKey(source: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof source === 'object') return source;
  const text = source.trimStart().startsWith('{') ? source : readKeyFile(source);
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // reported below without quoting the text (it holds a private key)
  }
  throw new Error('credentials: the service-account key is not a JSON object');
}

function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`credentials: cannot read the service-account key file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * The service account of a key (option `credentials`, else the file GOOGLE_APPLICATION_CREDENTIALS
 * names), or undefined when neither is set. Errors name the missing field, never a value.
 */
export function loadServiceAccount(source: string | Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = process.env): ServiceAccount | undefined {
  const given = source ?? (env.GOOGLE_APPLICATION_CREDENTIALS || undefined);
  if (given === undefined) return undefined;
  const key = readKey(given);
  if (key.type !== undefined && key.type !== 'service_account') throw new Error(`credentials: a key of type '${String(key.type)}' is not a service-account key`);
  for (const field of ['client_email', 'private_key']) {
    if (typeof key[field] !== 'string' || key[field] === '') throw new Error(`credentials: the service-account key has no ${field}`);
  }
  const tokenUri = typeof key.token_uri === 'string' && key.token_uri !== '' ? key.token_uri : GOOGLE_TOKEN_URI;
  if (!/^https?:\/\//.test(tokenUri)) throw new Error('credentials: token_uri must be an http(s) URL');
  return {
    clientEmail: key.client_email as string,
    privateKey: key.private_key as string,
    privateKeyId: typeof key.private_key_id === 'string' ? key.private_key_id : undefined,
    tokenUri,
    projectId: typeof key.project_id === 'string' ? key.project_id : undefined,
  };
}
