/**
 * SigV4 as AWS verifies it, written from the spec with node:crypto (not the signer the plugin
 * uses), so the Bedrock fake checks the plugin's signatures independently.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface SigV4Input {
  method: string;
  /** The path as it went on the wire (already percent-encoded once). */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  signedHeaders: string[];
  payloadHash: string;
  amzDate: string;
  region: string;
  service: string;
  secretAccessKey: string;
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** RFC 3986 encoding as AWS wants it (encodeURIComponent leaves !'()* alone). */
function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Services other than S3 encode each segment of the (once-encoded) path again. */
function canonicalPath(path: string): string {
  return path.split('/').map(awsEncode).join('/') || '/';
}

function canonicalQuery(query: string): string {
  if (!query) return '';
  return query
    .split('&')
    .map((pair) => pair.split('='))
    .map(([k, v = '']) => [awsEncode(decodeURIComponent(k)), awsEncode(decodeURIComponent(v))])
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined.trim().replace(/\s+/g, ' ');
}

/** The hex signature of a request. */
export function computeSignature(input: SigV4Input): string {
  const names = [...input.signedHeaders].sort();
  const canonicalHeaders = names.map((name) => `${name}:${headerValue(input.headers[name])}\n`).join('');
  const canonicalRequest = [input.method, canonicalPath(input.path), canonicalQuery(input.query), canonicalHeaders, names.join(';'), input.payloadHash].join('\n');
  const day = input.amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${input.secretAccessKey}`, day), input.region), input.service), 'aws4_request');
  return hmac(key, stringToSign).toString('hex');
}

export function payloadHashOf(body: Buffer | string): string {
  return sha256(body);
}

export function sameSignature(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The parts of an `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header. */
export function parseAuthorization(header: string): { accessKeyId: string; day: string; region: string; service: string; signedHeaders: string[]; signature: string } | undefined {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(header.trim());
  if (!match) return undefined;
  return { accessKeyId: match[1], day: match[2], region: match[3], service: match[4], signedHeaders: match[5].split(';'), signature: match[6] };
}

/** `20150830T123600Z` → epoch ms. */
export function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NaN;
}
