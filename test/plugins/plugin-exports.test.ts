/**
 * What a plugin file may export (README, docs/plugins.md): `export default definePlugin({...})`,
 * `module.exports = definePlugin({...})`, or a named `plugin` export; anything else is refused
 * with a message that says what the file exports and what to write.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PLUGIN_NAMES, loadPlugin } from '../../src/providers/index.ts';
import { BUILTIN_PLUGINS_WITH_FORMATS } from '../../src/providers/load-plugin.ts';
import { REPO_ROOT, tempDir } from '../helpers/spawn-gateway.ts';

const dir = tempDir('gw-plugin-exports-');
const DEFINE = "import { definePlugin } from 'gateway/plugin-kit';\nconst p = definePlugin({ name: 'p', formats: ['chat'], setup: () => ({}) });\n";
const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
write('default.mjs', `${DEFINE}export default p;\n`);
write('named.mjs', `${DEFINE}export const plugin = p;\n`);
write('cjs.cjs', "const { definePlugin } = require('gateway/plugin-kit');\nmodule.exports = definePlugin({ name: 'p', formats: ['chat'], setup: () => ({}) });\n");
write('other-name.mjs', `${DEFINE}export const myPlugin = p;\nexport const version = 1;\n`);
write('typo-key.mjs', "export default { name: 'p', format: ['chat'], setup: () => ({}) };\n");
write('typo-models.mjs', "export default { name: 'p', formats: ['chat'], model: [{ id: 'm' }], version: '1.0', setup: () => ({}) };\n");
write('own-keys.mjs', "export default { name: 'p', formats: ['chat'], version: '1.0', homepage: 'https://example.com', setup: () => ({}) };\n");
write('typo-type.mjs', "export default { name: 'p', formats: ['chat'], models: [{ id: 'm', type: 'chatt' }], setup: () => ({}) };\n");

describe('a plugin file', () => {
  it.each([['default.mjs'], ['named.mjs'], ['cjs.cjs']])('%s loads', async (file) => {
    expect((await loadPlugin('x', `./${file}`, dir)).name).toBe('p');
  });

  it('exporting the plugin under another name is told what it exports and what to write', async () => {
    await expect(loadPlugin('x', './other-name.mjs', dir)).rejects.toThrow(
      "provider 'x': plugin './other-name.mjs' has no default export (it exports myPlugin, version); export default definePlugin({...}), or export it as `plugin`",
    );
  });

  it('a misspelt plugin key is named with the key it most likely meant (before: "formats: Invalid input: expected array"; a misspelt optional key was not read at all)', async () => {
    await expect(loadPlugin('x', './typo-key.mjs', dir)).rejects.toThrow(`provider 'x': plugin './typo-key.mjs' has an unknown key "format" — did you mean "formats"?`);
    await expect(loadPlugin('x', './typo-models.mjs', dir)).rejects.toThrow(`provider 'x': plugin './typo-models.mjs' has an unknown key "model" — did you mean "models"?`);
  });

  it('keys of its own that are no typo of a plugin key load', async () => {
    expect((await loadPlugin('x', './own-keys.mjs', dir)).name).toBe('p');
  });

  it('listing a model of a type the gateway does not know is refused at load, naming the field and the types', async () => {
    // Loaded, it would be served by no route: every request for it a 400 that does not say why.
    await expect(loadPlugin('x', './typo-type.mjs', dir)).rejects.toThrow(
      /^provider 'x': plugin '\.\/typo-type\.mjs' is not a valid provider plugin \(models\.0\.type: .*"chat".*"image_generation"/,
    );
  });
});

describe('the built-in plugins', () => {
  // Before: "cannot load plugin 'mokc': Cannot find module 'mokc'", as if a package were missing.
  it('a misspelt built-in name is told the name it most likely meant and the built-in names', async () => {
    await expect(loadPlugin('mock', 'mokc', dir)).rejects.toThrow(
      "provider 'mock': cannot load plugin 'mokc': no built-in plugin or package of that name (did you mean 'mock'? built-in: mock, openai, anthropic, azure, bedrock, google)",
    );
    await expect(loadPlugin('x', 'my-own-upstream-plugin', dir)).rejects.toThrow(
      "provider 'x': cannot load plugin 'my-own-upstream-plugin': no built-in plugin or package of that name (built-in: mock, openai, anthropic, azure, bedrock, google)",
    );
    await expect(loadPlugin('x', './missing.ts', dir)).rejects.toThrow(/^provider 'x': cannot load plugin '\.\/missing\.ts': Cannot find module/);
  });

  it('that bring wire formats are the ones the CLI loads for its key scopes (BUILTIN_PLUGINS_WITH_FORMATS)', async () => {
    const bringing: string[] = [];
    for (const name of BUILTIN_PLUGIN_NAMES) if ((await loadPlugin(name, name, REPO_ROOT)).wireFormats?.length) bringing.push(name);
    expect(bringing).toEqual([...BUILTIN_PLUGINS_WITH_FORMATS]);
  });
});
