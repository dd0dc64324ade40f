import { z } from 'zod';

/** The Microsoft Entra ID (Azure AD) host of the public cloud. */
export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';
/** The token scope of Azure OpenAI (both API paths). */
export const DEFAULT_SCOPE = 'https://cognitiveservices.azure.com/.default';
/** The api-version the deployments path gets when the config names none: the first with Responses, images and audio. */
export const DEFAULT_API_VERSION = '2025-04-01-preview';

const httpsURL = z.url({ protocol: /^https?$/ });

/** Options of the `azure` plugin beyond the common provider keys (docs/providers.md). */
export const azureOptions = z.strictObject({
  /** The resource endpoint, e.g. `https://my-res.openai.azure.com` (a path is kept: an API Management front). */
  endpoint: httpsURL.optional(),
  /** `api-version` query parameter: required by the deployments path; optional on v1 (e.g. `preview`). */
  apiVersion: z.string().regex(/^[A-Za-z0-9.-]{1,40}$/, 'an api-version such as 2024-10-21 or 2025-04-01-preview').optional(),
  /**
   * `v1`: `/openai/v1/…`, the deployment as `model` (the default unless `apiVersion` is set);
   * `deployments`: `/openai/deployments/{deployment}/…?api-version=…` (Responses: `/openai/responses`).
   */
  apiPath: z.enum(['v1', 'deployments']).optional(),
  /** Microsoft Entra client credentials (instead of an API key). */
  tenantId: z.string().regex(/^[A-Za-z0-9.-]{1,100}$/, 'a tenant id (GUID) or domain').optional(),
  clientId: z.string().min(1).max(200).optional(),
  clientSecret: z.string().min(1).max(2000).optional(),
  /** The Entra host (sovereign clouds; a test's fake); https only, as MSAL requires. */
  authorityHost: z.url({ protocol: /^https$/ }).optional(),
  /** The token scope (default `https://cognitiveservices.azure.com/.default`). */
  scope: z.string().min(1).max(500).optional(),
});

export type AzureOptions = z.output<typeof azureOptions>;
