import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInstanceId } from '../../src/store/data-dir.ts';

describe('the instance id of a data dir', () => {
  it('is made once (0600), read back the same, and replaced with a warning when not an id', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-inst-'));
    const first = readInstanceId(dir);
    expect(first).toMatch(/^inst_[A-Za-z0-9]{16}$/);
    expect(fs.statSync(path.join(dir, 'instance-id')).mode & 0o777).toBe(0o600);
    expect(readInstanceId(dir)).toBe(first);
    fs.writeFileSync(path.join(dir, 'instance-id'), 'garbage\n');
    const warnings: string[] = [];
    const second = readInstanceId(dir, (m) => warnings.push(m));
    expect(second).not.toBe(first);
    expect(warnings).toEqual([expect.stringContaining('instance-id in the data dir is not an instance id')]);
    expect(readInstanceId(dir)).toBe(second);
  });
});
