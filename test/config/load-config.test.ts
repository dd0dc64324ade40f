import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, suggestKey } from '../../src/config/index.ts';
import { parseMediaConfig } from '../../src/media/media-config.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

async function loadError(name: string, text: string): Promise<string> {
  const dir = tempDir('gw-config-');
  fs.writeFileSync(path.join(dir, name), text);
  const error = await loadConfig({ cwd: dir }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe('suggestKey', () => {
  it('finds the key a typo meant, and nothing for a different word', () => {
    const known = ['server', 'dataDir', 'providers', 'defaults', 'routing', 'limits', 'billing', 'media', 'logging'];
    expect(suggestKey('provders', known)).toBe('providers');
    expect(suggestKey('prot', ['port', 'host', 'bodyLimits'])).toBe('port');
    expect(suggestKey('modles', ['plugin', 'models', 'formats'])).toBe('models');
    expect(suggestKey('baseUrl', ['baseURL', 'apiKey'])).toBe('baseURL');
    expect(suggestKey('datadir', known)).toBe('dataDir');
    expect(suggestKey('colour', known)).toBeUndefined();
    expect(suggestKey('x', ['y'])).toBeUndefined();
  });
});

describe('a required value the config left undefined', () => {
  it('says that an environment variable the config reads may be unset', async () => {
    delete process.env.GW_TEST_UNSET_DATABASE_URL;
    expect(await loadError('gateway.config.ts', 'export default { store: { postgres: process.env.GW_TEST_UNSET_DATABASE_URL } };\n')).toBe(
      'gateway.config.ts: store.postgres: Invalid input: expected string, received undefined (nothing was given: if the config reads it from an environment variable, that variable is not set)',
    );
    // A value of the wrong type is not called missing.
    expect(() => parseConfig({ server: { port: 'eighty' } }, 'c.ts')).toThrow(/^c\.ts: server\.port: [^(]*$/);
  });
});

describe('unknown config keys', () => {
  it('are errors naming the file, the path and a suggestion', async () => {
    expect(await loadError('gateway.config.ts', 'export default { provders: { mock: { plugin: "mock" } } };\n')).toBe(
      'gateway.config.ts: unknown key "provders" — did you mean "providers"?',
    );
    expect(await loadError('gateway.config.json', '{ "server": { "prot": 8080 } }')).toBe('gateway.config.json: unknown key "server.prot" — did you mean "server.port"?');
  });

  it('are found at any depth: routing, limits, billing, model entries, pricing', () => {
    const problems: Array<[unknown, string]> = [
      [{ routing: { breker: {} } }, 'unknown key "routing.breker" — did you mean "routing.breaker"?'],
      [{ limits: { store: { redis: 'redis://127.0.0.1:6379', prefx: 'a' } } }, 'unknown key "limits.store.prefx" — did you mean "limits.store.prefix"?'],
      [{ billing: { enforced: false } }, 'unknown key "billing.enforced" — did you mean "billing.enforce"?'],
      [{ logging: { levl: 'warn' } }, 'unknown key "logging.levl" — did you mean "logging.level"?'],
      [
        { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', prcing: { input: 1 } }] } } },
        'unknown key "providers.mock.models[0].prcing" — did you mean "providers.mock.models[0].pricing"?',
      ],
      [{ providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { inptu: 1 } }] } } }, 'did you mean "providers.mock.models[0].pricing.input"?'],
      [{ server: { bodyLimits: { infrence: 1 } } }, 'did you mean "server.bodyLimits.inference"?'],
    ];
    for (const [raw, expected] of problems) {
      expect(() => parseConfig(raw, 'my.config.ts')).toThrow(expected);
    }
  });

  it('without a close match list what the object takes', () => {
    expect(() => parseConfig({ colour: 'blue' }, 'c.ts')).toThrow(
      'c.ts: unknown key "colour" (known keys: server, dataDir, store, providers, defaults, routing, limits, billing, media, logging, metrics, batches, storage, dashboard)',
    );
    expect(() => parseConfig({ server: { zzz: 1 } }, 'c.ts')).toThrow(/unknown key "server.zzz" \("server" takes: port, host, /);
  });

  it('several typos are all reported on one line', () => {
    const message = (() => {
      try {
        parseConfig({ provders: {}, server: { prot: 1 } }, 'c.ts');
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).not.toContain('\n');
    expect(message).toContain('unknown key "provders" — did you mean "providers"?');
    expect(message).toContain('unknown key "server.prot" — did you mean "server.port"?');
  });

  it('other problems keep "field: message"', () => {
    expect(() => parseConfig({ server: { port: 'eighty' } }, 'c.ts')).toThrow(/^c\.ts: server\.port: /);
    // A baseURL without its scheme (Ollama's docs write localhost:11434): "provider 'o': plugin 'openai' failed to set up: Invalid URL" before.
    for (const baseURL of ['localhost:11434/v1', 'ftp://example.com/v1']) {
      expect(() => parseConfig({ providers: { o: { plugin: 'openai', baseURL } } }, 'c.ts')).toThrow('c.ts: providers.o.baseURL: must be an http:// or https:// URL (e.g. http://localhost:11434/v1)');
    }
    expect(() => parseConfig({ providers: { o: { plugin: 'openai', baseURL: 'http://[::1]:11434/v1' } } }, 'c.ts')).not.toThrow();
    // A model entry (an id or an object) names the field inside it: "providers.o.models[0]: Invalid input" before.
    expect(() => parseConfig({ providers: { o: { plugin: 'openai', models: [{ id: 'a', pricing: { input: '1' } }] } } }, 'c.ts')).toThrow(
      'c.ts: providers.o.models[0].pricing.input: Invalid input: expected number, received string',
    );
  });

  it('the media section is checked the same way', () => {
    expect(() => parseMediaConfig({ tempImageTtlSecond: 5 }, 'c.ts')).toThrow('c.ts: unknown key "media.tempImageTtlSecond" — did you mean "media.tempImageTtlSeconds"?');
  });
});

describe('config syntax errors', () => {
  it('show file:line:column for TypeScript, JavaScript, JSON and YAML', async () => {
    expect(await loadError('gateway.config.ts', 'export default {\n  server: { port: 8787 }\n  providers: {},\n};\n')).toBe(
      'gateway.config.ts:3:2: syntax error: Unexpected token, expected ","',
    );
    expect(await loadError('gateway.config.mjs', 'export default {\n  server: { port: 8787 }\n  providers: {},\n};\n')).toMatch(/^gateway\.config\.mjs:3:2: syntax error: /);
    expect(await loadError('gateway.config.json', '{\n  "server": { "port": 8787 },\n  "providers": {,}\n}\n')).toMatch(/^gateway\.config\.json:3:17: syntax error: /);
    expect(await loadError('gateway.config.yaml', 'server:\n  port: 8787\n providers: [\n')).toBe('gateway.config.yaml:3:2: syntax error: bad indentation of a mapping entry');
  });

  it('an error thrown while the config runs names its line', async () => {
    const message = await loadError('gateway.config.ts', 'const key = undefined as unknown as string;\n\nexport default {\n  providers: { mock: { plugin: key.trim() } },\n};\n');
    expect(message).toMatch(/^gateway\.config\.ts:4:\d+: TypeError: Cannot read properties of undefined/);
  });
});

describe('no config file', () => {
  it('loads the built-in defaults with the offline mock provider', async () => {
    const dir = tempDir('gw-config-');
    fs.writeFileSync(path.join(dir, 'package.json'), '{}'); // the search stops at the project root
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.filepath).toBeUndefined();
    expect(Object.keys(loaded.config.providers)).toEqual(['mock']);
  });
});

describe('defaults that are spec numbers', () => {
  it('body size limits are spec §8.2: inference 100 MB, media uploads 25 MB, other endpoints 10 MB (MiB, docs/limits.md)', () => {
    expect(parseConfig({}).server.bodyLimits).toMatchObject({ inference: 100 * 1024 * 1024, media: 25 * 1024 * 1024, other: 10 * 1024 * 1024 });
  });
});
