import { describe, expect, it } from 'vitest';
import { UploadGate } from '../../src/server/upload-gate.ts';

describe('UploadGate', () => {
  it('bounds uploads per account (429) and per instance (503); a release is counted once', () => {
    const gate = new UploadGate({ uploadsConcurrency: 3, uploadsPerAccount: 2 });
    const a1 = gate.enter('a');
    gate.enter('a');
    expect(() => gate.enter('a')).toThrow(expect.objectContaining({ code: 'rate_limit_exceeded', status: 429, retryAfter: 1 }));
    const b1 = gate.enter('b');
    expect(() => gate.enter('c')).toThrow(expect.objectContaining({ code: 'service_unavailable', status: 503 }));
    a1();
    a1();
    gate.enter('c');
    expect(() => gate.enter('d')).toThrow(expect.objectContaining({ code: 'service_unavailable' }));
    b1();
    gate.enter('a');
  });
});
