/**
 * A plugin whose setup returns no `chat` while it lists chat models: the gateway starts (a
 * media-only plugin is fine), but every request for those models would be a 400 "cannot serve
 * this request" that says nothing to the operator, so the start says it once, naming them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

const dir = tempDir('gw-chatless-');
const write = (name: string, models: string) =>
  fs.writeFileSync(path.join(dir, name), `export default { name: 'quiet', formats: ['chat'], models: ${models}, setup: () => ({ images: { generate: async () => ({ images: [] }) } }) };\n`);
write('chat-models.mjs', "[{ id: 'talk', type: 'chat' }, { id: 'draw', type: 'image_generation' }, { id: 'plain' }]");
write('image-only.mjs', "[{ id: 'draw', type: 'image_generation' }]");

async function startLines(file: string): Promise<string[]> {
  const lines: string[] = [];
  const registry = await ProviderRegistry.create(parseConfig({ providers: { q: { plugin: `./${file}` } } }), { configDir: dir, log: createLogger('info', (line) => lines.push(line)) });
  await registry.close();
  return lines;
}

describe('a plugin that returns no chat()', () => {
  it('is named at start with the chat models no request can reach, and what to do', async () => {
    expect(await startLines('chat-models.mjs')).toEqual([
      "[gateway] warn: provider 'q': plugin 'quiet' returned no chat() from setup, so its chat models (q/talk, q/plain) answer every request with a 400; return chat from setup (docs/plugins.md) or give those models another type",
    ]);
  });

  it('starts without a word when it lists no chat model (a media-only plugin)', async () => {
    expect(await startLines('image-only.mjs')).toEqual([]);
  });
});
