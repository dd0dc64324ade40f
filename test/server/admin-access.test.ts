import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from '../../src/server/admin-access.ts';

describe('isLoopbackAddress', () => {
  it('knows 127.0.0.0/8, ::1 and their mapped forms', () => {
    for (const a of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) expect(isLoopbackAddress(a)).toBe(true);
    for (const a of ['10.0.0.1', '192.168.1.1', '203.0.113.7', '::ffff:10.0.0.1', 'fe80::1', '::', '0.0.0.0', '128.0.0.1', '1270.0.0.1', 'unknown', '']) expect(isLoopbackAddress(a)).toBe(false);
  });
});
