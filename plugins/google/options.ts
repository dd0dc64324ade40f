/** Options of the `google` plugin beyond the common provider keys (`baseURL`, `apiKey`, `headers`, …). */
export interface GoogleOptions {
  /** `gemini`: AI Studio (generativelanguage.googleapis.com, API key); `vertex`: Vertex AI (OAuth2). */
  api: 'gemini' | 'vertex';
  /** Vertex: the Google Cloud project (default: the service account's `project_id`). */
  project?: string;
  /** Vertex: a region (`us-central1`), a multi-region (`us`, `eu`) or `global` (the default). */
  location: string;
  /**
   * Vertex: a service-account key, as a file path, its JSON text or the parsed object (default:
   * the file GOOGLE_APPLICATION_CREDENTIALS names). Its `token_uri` is where tokens are minted.
   */
  credentials?: string | Record<string, unknown>;
  /** Vertex: a ready OAuth2 access token instead of a service account (never refreshed). */
  accessToken?: string;
  /** The API version in the path (default `v1beta` for AI Studio, `v1` for Vertex). */
  apiVersion?: string;
}

export const OPTION_KEYS = ['api', 'project', 'location', 'credentials', 'accessToken', 'apiVersion'] as const;

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function optionalString(o: Record<string, unknown>, key: string): string | undefined {
  const value = o[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new Error(`${key} must be a non-empty string`);
  return value;
}

/** Validates the provider entry's plugin options; messages never quote a credential. */
export function parseGoogleOptions(input: unknown): GoogleOptions {
  const o = (input ?? {}) as Record<string, unknown>;
  const api = o.api ?? 'gemini';
  if (api !== 'gemini' && api !== 'vertex') throw new Error(`api must be 'gemini' (AI Studio) or 'vertex' (Vertex AI)`);
  const project = optionalString(o, 'project');
  const location = optionalString(o, 'location') ?? 'global';
  // Both go into the upstream URL's path.
  if (project !== undefined && !SEGMENT.test(project)) throw new Error('project must be a Google Cloud project id');
  if (!SEGMENT.test(location)) throw new Error('location must be a region such as us-central1, or global');
  const apiVersion = optionalString(o, 'apiVersion');
  if (apiVersion !== undefined && !/^v\d+[a-z0-9]*$/.test(apiVersion)) throw new Error('apiVersion must look like v1 or v1beta');
  const credentials = o.credentials;
  if (credentials !== undefined && typeof credentials !== 'string' && (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials))) {
    throw new Error('credentials must be a file path, the key JSON text or the key object');
  }
  const accessToken = optionalString(o, 'accessToken');
  if (api === 'gemini' && (project ?? credentials ?? accessToken ?? o.location) !== undefined) {
    throw new Error(`project, location, credentials and accessToken are Vertex options: set api: 'vertex'`);
  }
  return { api, project, location, credentials: credentials as GoogleOptions['credentials'], accessToken, apiVersion };
}
