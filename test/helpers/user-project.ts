import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { REPO_ROOT } from './spawn-gateway.ts';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/plugins');

/**
 * Puts a plugin author's files into `dir`: a gateway.config.ts that imports `gateway`, a
 * TypeScript plugin (`shout/…`) and a CommonJS one (`whisper/…`), beside the built-in mock.
 */
export function writeUserProject(dir: string): void {
  for (const name of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
}

/** Asserts that the user project's providers answer through the gateway at `url`. */
export async function expectUserProjectServes(url: string, key: string): Promise<void> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
  const ask = async (model: string, content: string) =>
    (await client.chat.completions.create({ model, messages: [{ role: 'user', content }] })).choices[0].message.content;
  expect(await ask('mock/echo', 'hello mock')).toBe('hello mock');
  expect(await ask('shout/shout', 'hello plugin')).toBe('HELLO PLUGIN!');
  expect(await ask('whisper/whisper', 'HELLO CommonJS')).toBe('hello commonjs');
  // The plugin's GatewayError is the gateway's own class: its code and status come through.
  const refused = await client.chat.completions.create({ model: 'shout/refuse', messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(OpenAI.APIError);
  expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
  expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe('validation_error');
}
