/**
 * The plugin kit's promise (issue 21 §4): the host calls a plugin only with a format it
 * declared (`supportedFormats`, else `formats`). A config that names another is refused at
 * start-up, and a call that would break the promise at run time is refused before the plugin
 * sees it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { callUpstream } from '../../src/pipeline/index.ts';
import { ProviderRegistry } from '../../src/providers/index.ts';
import type { ChatCall } from '../../src/plugin-kit/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { watchOf } from '../../src/util/index.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';

const PLUGIN = './test/fixtures/plugins/patching-plugin.ts'; // declares `formats: ['messages']`
const log = createLogger('silent');
const registryOf = (providers: Record<string, unknown>) => ProviderRegistry.create(parseConfig({ providers }), { configDir: REPO_ROOT, log });

describe('a plugin is called only with a format it declared', () => {
  it('refuses a provider or model entry naming a format the plugin does not speak, at start-up', async () => {
    await expect(registryOf({ v: { plugin: PLUGIN, baseURL: 'http://127.0.0.1:9', formats: ['chat'], models: ['m'] } })).rejects.toThrow(/does not speak 'chat' \(it speaks messages\)/);
    await expect(registryOf({ v: { plugin: PLUGIN, baseURL: 'http://127.0.0.1:9', models: [{ id: 'm', formats: ['responses'] }] } })).rejects.toThrow(/does not speak 'responses'/);
  });

  it('refuses a plugin declaring a format it does not bring, saying where a format of its own goes', async () => {
    const dir = tempDir('gw-own-format-');
    fs.writeFileSync(path.join(dir, 'parrot.mjs'), "import { definePlugin } from 'gateway/plugin-kit';\nexport default definePlugin({ name: 'parrot', formats: ['parrot'], setup: () => ({}) });\n");
    await expect(ProviderRegistry.create(parseConfig({ providers: { p: { plugin: './parrot.mjs' } } }), { configDir: dir, log })).rejects.toThrow(
      "provider 'p': plugin './parrot.mjs' declares format 'parrot', which is not registered (known: chat, responses, messages, gemini, completions) and not in its wireFormats: a format of its own goes there, wireFormats: [defineFormat({ id: 'parrot', … })] (docs/adding-a-format.md)",
    );
  });

  it('refuses a call in another format before the plugin sees it', async () => {
    const registry = await registryOf({ v: { plugin: PLUGIN, baseURL: 'http://127.0.0.1:9', models: ['m'] } });
    try {
      const model = registry.models.find((m) => m.id === 'v/m')!;
      expect(model.formats).toEqual(['messages']);
      let called = 0;
      const provider = { ...model.provider, instance: { ...model.provider.instance, chat: () => ((called += 1), Promise.reject(new Error('called'))) } };
      const call: Omit<ChatCall, 'signal'> = { format: 'chat', model: 'm', stream: false, headers: {}, body: {}, rawBody: '{}' };
      const refused = await callUpstream({ ...model, provider, formats: ['chat'] }, call, watchOf(new AbortController().signal)).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'internal_error', message: expect.stringContaining("format 'chat', which its plugin does not speak") });
      expect(called).toBe(0);
    } finally {
      await registry.close();
    }
  });
});
