import { describe, expect, it } from 'vitest';
import { GatewayError, validationError } from '../../src/errors/index.ts';

describe('errors quote a short excerpt of client input', () => {
  it('cuts every long quote in the message, and the message as a whole', () => {
    const id = 'x'.repeat(5_000_000);
    const error = new GatewayError('not_found', `No file with id '${id}'.`);
    expect(error.message).toBe(`No file with id '${'x'.repeat(64)}… (4999936 more characters)'.`);
    expect(new GatewayError('bad_request', 'y'.repeat(10_000)).message.length).toBeLessThan(2100);
    expect(new GatewayError('bad_request', "short 'quote' stays").message).toBe("short 'quote' stays");
  });

  it("takes an apostrophe inside a word for one, not for a quote: a long message's own words stay whole", () => {
    const words = "The gateway doesn't serve Converse here: it comes with the bedrock plugin, so add a provider with plugin 'bedrock' to the config (InvokeModel needs none).";
    expect(new GatewayError('not_found', words).message).toBe(words);
    const id = "it's".repeat(1_000);
    // A quoted value keeps its excerpt whatever apostrophes it holds; the model's own quote after it stays.
    const quoted = new GatewayError('not_found', `The user's file '${id}' is not the model 'mock/echo' you asked for.`).message;
    expect(quoted).toBe(`The user's file '${id.slice(0, 64)}… (${id.length - 64} more characters)' is not the model 'mock/echo' you asked for.`);
  });

  it('bounds strings, keys and entries in details; small details stay the same object', () => {
    const fields = { ['k'.repeat(1_000)]: 'v'.repeat(1_000), __proto__x: 'ok' };
    const error = validationError(fields);
    const bounded = (error.details as { fields: Record<string, string> }).fields;
    for (const [key, value] of Object.entries(bounded)) {
      expect(key.length).toBeLessThan(300);
      expect(value.length).toBeLessThan(300);
    }
    const many = new GatewayError('bad_request', 'm', { details: { list: Array.from({ length: 1_000 }, (_, i) => i) } });
    expect((many.details!.list as unknown[]).length).toBe(65);
    const small = { model: 'mock/echo' };
    expect(new GatewayError('bad_request', 'm', { details: small }).details).toBe(small);
    const proto = new GatewayError('bad_request', 'm', { details: JSON.parse(`{"__proto__":"${'p'.repeat(400)}"}`) as Record<string, unknown> });
    expect(Object.getPrototypeOf(proto.details)).toBe(Object.prototype);
    expect(Object.keys(proto.details!)).toEqual(['__proto__']);
  });
});
