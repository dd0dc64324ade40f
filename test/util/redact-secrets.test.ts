import { afterEach, describe, expect, it } from 'vitest';
import { buildErrorEnvelope, GatewayError } from '../../src/errors/index.ts';
import { getCodec } from '../../src/formats/registry.ts';
import type { WireFormat } from '../../src/ir/types.ts';
import { containsSecret, forgetSecrets, hasSecrets, redactSecrets, rememberSecret, rememberSecretHeader } from '../../src/util/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { ProviderRegistry } from '../../src/providers/registry.ts';
import { parseConfig } from '../../src/config/index.ts';
import { formatSse, writeSse } from '../../src/sse/index.ts';
import { STREAM_IDS } from '../formats/stream-helpers.ts';

const KEY = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
const ids = { requestId: 'req_1', correlationId: 'req_1' };

describe('redactSecrets', () => {
  afterEach(() => forgetSecrets());

  it('replaces a remembered value wherever it occurs, and nothing when none is remembered', () => {
    expect(hasSecrets()).toBe(false);
    expect(redactSecrets(`bad key ${KEY}`)).toBe(`bad key ${KEY}`);
    rememberSecret(KEY);
    expect(redactSecrets(`bad key ${KEY}, again ${KEY}.`)).toBe('bad key [redacted], again [redacted].');
    expect(containsSecret(Buffer.from(`x${KEY}x`))).toBe(true);
    expect(containsSecret('nothing here')).toBe(false);
  });

  it('ignores values too short to be a credential', () => {
    rememberSecret('abc');
    rememberSecret('');
    rememberSecret(undefined);
    expect(hasSecrets()).toBe(false);
    expect(redactSecrets('abc abc')).toBe('abc abc');
  });

  it('redacts a secret that contains another as a whole', () => {
    rememberSecret('token-12345678');
    rememberSecret('token-12345678-extended');
    expect(redactSecrets('a token-12345678-extended b')).toBe('a [redacted] b');
  });

  it('takes the token out of a credential header value, and the JSON-escaped form of a value', () => {
    rememberSecretHeader('Bearer abcdefgh12345678');
    expect(redactSecrets('key abcdefgh12345678 seen')).toBe('key [redacted] seen');
    rememberSecret('quote"d\\secret12');
    expect(redactSecrets(JSON.stringify({ m: 'quote"d\\secret12' }))).toBe('{"m":"[redacted]"}');
  });

  it('is applied to every error envelope and every stream error event, in all three formats', () => {
    rememberSecret(KEY);
    const error = new GatewayError('bad_request', `Incorrect API key provided: ${KEY}`);
    expect(JSON.stringify(buildErrorEnvelope(error, ids))).not.toContain(KEY);
    for (const format of ['chat', 'messages', 'responses'] as WireFormat[]) {
      const codec = getCodec(format);
      const texts = [JSON.stringify(codec.encodeError(error, ids)), formatSse(codec.encodeStreamError(error, ids))];
      const request = codec.decodeRequest(format === 'responses' ? { model: 'm', input: 'hi' } : { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] });
      const encoder = codec.createStreamEncoder(request, STREAM_IDS);
      texts.push(writeSse(encoder.encode({ type: 'start', id: 'x', model: 'm', created: 1 })) + writeSse(encoder.encode({ type: 'error', error: { code: 'provider_error', message: error.message, status: 502 } })));
      for (const text of texts) {
        expect(text, format).not.toContain(KEY);
        expect(text, format).toContain('[redacted]');
      }
    }
  });

  it('is applied to every log line', () => {
    rememberSecret(KEY);
    const lines: string[] = [];
    const log = createLogger('debug', (line) => lines.push(line));
    log.error(`upstream said ${KEY}`, { detail: { message: KEY } });
    log.debug('x', { key: KEY });
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain(KEY);
      expect(line).toContain('[redacted]');
    }
  });

  it("remembers every provider's apiKey and configured header values when providers are set up", async () => {
    const config = parseConfig({
      providers: { up: { plugin: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKey: KEY, headers: { 'x-portkey-api-key': 'pk_custom_header_value' }, models: ['m'] } },
    });
    const registry = await ProviderRegistry.create(config, { configDir: process.cwd(), log: createLogger('silent') });
    expect(redactSecrets(`${KEY} pk_custom_header_value`)).toBe('[redacted] [redacted]');
    await registry.close();
  });
});
