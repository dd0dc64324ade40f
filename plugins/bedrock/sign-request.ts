// SigV4 signing of one Bedrock runtime call, by the AWS SDK's own signer.
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentials, AwsCredentialsProvider } from './resolve-credentials.ts';

/** A request to sign: its URL (path already percent-encoded as it goes on the wire), headers and body. */
export interface RequestToSign {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

/** Signs requests for one region and the `bedrock` service, with the keys `credentials` hands out at the time. */
export function createSigner(credentials: AwsCredentials | AwsCredentialsProvider, region: string): (request: RequestToSign) => Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region, service: 'bedrock', sha256: Sha256, uriEscapePath: true });
  return async ({ url, headers, body }) => {
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: {},
      headers: { ...headers, host: url.host },
      body,
    });
    const out = { ...(signed.headers as Record<string, string>) };
    delete out.host; // the HTTP client sends the same Host itself
    return out;
  };
}

/**
 * The region an endpoint signs for: the one in an AWS host name (`bedrock-runtime.eu-west-1.amazonaws.com`,
 * `bedrock-runtime-fips.us-east-1…`, a VPC endpoint's `…bedrock-runtime.us-east-1.vpce.amazonaws.com`), else the configured one.
 */
export function signingRegionOf(url: URL, configured: string): string {
  const match = /(?:^|\.)bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-gov)?-[a-z]+-\d)\.(?:vpce\.)?amazonaws\.com(?:\.cn)?$/.exec(url.hostname);
  return match ? match[1] : configured;
}
