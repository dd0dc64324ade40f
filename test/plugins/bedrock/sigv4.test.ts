// SigV4: the fake's verifier against AWS's published test vector, and the plugin's signer
// (the AWS SDK's) against the fake's verifier for a Bedrock call.
import { describe, expect, it } from 'vitest';
import { createSigner, signingRegionOf } from '../../../plugins/bedrock/sign-request.ts';
import { computeSignature, parseAuthorization, payloadHashOf } from '../../helpers/sigv4-verify.ts';

describe('SigV4', () => {
  it("matches AWS's get-vanilla test vector", () => {
    const signature = computeSignature({
      method: 'GET',
      path: '/',
      query: '',
      headers: { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' },
      signedHeaders: ['host', 'x-amz-date'],
      payloadHash: payloadHashOf(''),
      amzDate: '20150830T123600Z',
      region: 'us-east-1',
      service: 'service',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    });
    expect(signature).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  it('signs a Bedrock call as the verifier recomputes it (encoded model id, session token)', async () => {
    const sign = createSigner({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret/key+x', sessionToken: 'token' }, 'eu-west-1');
    const url = new URL('https://bedrock-runtime.eu-west-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
    const body = '{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[]}';
    const headers = await sign({ url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    expect(headers['x-amz-security-token']).toBe('token');
    const auth = parseAuthorization(headers.authorization)!;
    expect(auth).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', region: 'eu-west-1', service: 'bedrock' });
    const input = { method: 'POST', path: url.pathname, query: '', headers: { ...headers, host: url.host }, signedHeaders: auth.signedHeaders, payloadHash: payloadHashOf(body), amzDate: headers['x-amz-date'], region: 'eu-west-1', service: 'bedrock', secretAccessKey: 'secret/key+x' };
    expect(computeSignature(input)).toBe(auth.signature);
    expect(computeSignature({ ...input, payloadHash: payloadHashOf(`${body} `) })).not.toBe(auth.signature);
  });

  it('signs for the endpoint’s region, whatever the config or the model prefix says', () => {
    expect(signingRegionOf(new URL('https://bedrock-runtime.eu-central-1.amazonaws.com'), 'us-east-1')).toBe('eu-central-1');
    expect(signingRegionOf(new URL('https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com'), 'us-east-1')).toBe('us-gov-west-1');
    expect(signingRegionOf(new URL('https://vpce-0a1b-x.bedrock-runtime.ap-southeast-2.vpce.amazonaws.com'), 'us-east-1')).toBe('ap-southeast-2');
    expect(signingRegionOf(new URL('http://127.0.0.1:4000'), 'us-west-2')).toBe('us-west-2');
  });
});
