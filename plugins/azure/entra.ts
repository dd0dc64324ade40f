import { ConfidentialClientApplication } from '@azure/msal-node';
import { GatewayError } from 'gateway/plugin-kit';

/** Microsoft Entra client credentials (an app registration with the "Cognitive Services OpenAI User" role). */
export interface EntraCredentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** e.g. `https://login.microsoftonline.com` */
  authorityHost: string;
  scope: string;
}

interface HeldToken {
  header: string;
  /** When to start getting the next one (the old one is still handed out until then plus the margin). */
  refreshAt: number;
  expiresAt: number;
}

/** A token is never handed out closer than this to its expiry (clock skew, the call's own time). */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * Bearer tokens for Azure OpenAI through MSAL's client-credentials flow: one token cached and
 * shared by every call, refreshed before it expires (at MSAL's `refreshOn`, else five minutes
 * or half its life before expiry, whichever comes first); one token request at a time. A call
 * waits for the token endpoint only when no valid token is held; otherwise a refresh runs
 * beside it.
 */
export class EntraTokens {
  private readonly app: ConfidentialClientApplication;
  private held: HeldToken | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly providerId: string,
    private readonly credentials: EntraCredentials,
  ) {
    const host = credentials.authorityHost.replace(/\/+$/, '');
    const authority = `${host}/${credentials.tenantId}`;
    this.app = new ConfidentialClientApplication({
      auth: {
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        authority,
        knownAuthorities: [new URL(host).host],
        // The endpoints every Entra cloud has; given here so MSAL does not fetch them first.
        authorityMetadata: JSON.stringify({
          token_endpoint: `${authority}/oauth2/v2.0/token`,
          authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
          issuer: `${authority}/v2.0`,
          jwks_uri: `${authority}/discovery/v2.0/keys`,
        }),
      },
    });
  }

  /** The `Authorization` header value: at once when a valid token is held. */
  header(): string | Promise<string> {
    const now = Date.now();
    const held = this.held;
    if (held && now < held.refreshAt) return held.header;
    const next = (this.pending ??= this.fetch().finally(() => (this.pending = undefined)));
    if (held && now < held.expiresAt - EXPIRY_MARGIN_MS) {
      next.catch(() => undefined); // the next call that needs it sees the failure
      return held.header;
    }
    return next;
  }

  private async fetch(): Promise<string> {
    let result;
    try {
      // skipCache: this class holds the token and decides when to refresh it.
      result = await this.app.acquireTokenByClientCredential({ scopes: [this.credentials.scope], skipCache: true });
    } catch (error) {
      const code = (error as { errorCode?: string }).errorCode ?? 'token_request_failed';
      // MSAL's messages quote Entra's (AADSTS…), never the secret; only the code is passed on.
      throw new GatewayError('provider_error', `The provider '${this.providerId}' could not get a Microsoft Entra token (${code}).`, {
        details: { provider: this.providerId },
      });
    }
    if (!result?.accessToken || !result.expiresOn) {
      throw new GatewayError('provider_error', `The provider '${this.providerId}' got no Microsoft Entra token.`, { details: { provider: this.providerId } });
    }
    const now = Date.now();
    const expiresAt = result.expiresOn.getTime();
    const early = Math.min(5 * 60_000, (expiresAt - now) / 2);
    const refreshAt = result.refreshOn ? Math.min(result.refreshOn.getTime(), expiresAt - early) : expiresAt - early;
    const header = `Bearer ${result.accessToken}`;
    this.held = { header, refreshAt, expiresAt };
    return header;
  }
}
