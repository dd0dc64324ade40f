import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importUserDefault, importUserModule } from '../../src/config/import-user-module.ts';
import { defineConfig } from '../../src/config/define-config.ts';
import * as pluginKit from '../../src/plugin-kit/index.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

/** A folder outside the repo, as a user's CommonJS project (npm's default), with nothing installed. */
function commonJsProject(files: Record<string, string>): string {
  const dir = tempDir('gw-user-module-');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'user', version: '1.0.0', type: 'commonjs' }));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('importUserModule', () => {
  it('compiles TypeScript in a CommonJS project and hands it this gateway’s own plugin kit', async () => {
    const dir = commonJsProject({
      'plugin.ts': [
        "import { GatewayError, definePlugin } from 'gateway/plugin-kit';",
        "import { label } from './label';",
        'enum Kind { Chat = "chat" }',
        'export const errorClass = GatewayError;',
        'export default definePlugin({ name: label, formats: [Kind.Chat], setup: () => ({}) });',
      ].join('\n'),
      'label.ts': "export const label: string = 'from-ts';",
    });
    const mod = await importUserModule(path.join(dir, 'plugin.ts'));
    expect(mod.errorClass).toBe(pluginKit.GatewayError);
    expect((mod.default as { name: string; formats: string[] }).name).toBe('from-ts');
    expect((mod.default as { formats: string[] }).formats).toEqual(['chat']);
  });

  it('gives CommonJS `require` the same modules, `gateway` included', async () => {
    const dir = commonJsProject({
      'plugin.cjs': "const kit = require('gateway/plugin-kit');\nconst root = require('gateway');\nmodule.exports = { kit: kit.UpstreamHttpError, root: root.defineConfig, rootKit: root.definePlugin };\n",
    });
    const mod = (await importUserDefault(path.join(dir, 'plugin.cjs'))) as Record<string, unknown>;
    expect(mod.kit).toBe(pluginKit.UpstreamHttpError);
    expect(mod.root).toBe(defineConfig);
    expect(mod.rootKit).toBe(pluginKit.definePlugin);
  });

  it('loads an ES module config that imports `gateway` from a folder where it is not installed', async () => {
    const dir = commonJsProject({ 'gateway.config.mjs': "import { defineConfig } from 'gateway';\nexport default defineConfig({ providers: { mock: { plugin: 'mock' } } });\n" });
    expect(await importUserDefault(path.join(dir, 'gateway.config.mjs'))).toEqual({ providers: { mock: { plugin: 'mock' } } });
  });
});
