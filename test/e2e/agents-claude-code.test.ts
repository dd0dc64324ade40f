/**
 * Claude Code (the real CLI, pinned in test/clients) through the gateway (issue 24): `claude -p`
 * non-interactive with the Write tool allowed completes a task that writes a file, with the model
 * served under an id Claude Code does not recognise by an Anthropic fake (passthrough), a Chat
 * fake and a Responses fake (conversion). The fakes are strict (test/helpers/strict-fakes.ts):
 * turn 1 calls Write, the final text comes once the tool result arrives; any request the real
 * API would refuse fails the test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { claudeBin, clientEnv, ensureTestClients } from '../helpers/test-clients.ts';

const CONTENT = 'hello from the gateway';
const FIND_TOOL = 'Find the tool that edits notebooks';
/** A 4×4 PNG and a one-page PDF, the files Claude Code's Read gives the model as an image and a document. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGM4oaEBRwzEcQDRQxGBSNLB6wAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 44>>stream\nBT /F1 24 Tf 20 100 Td (Hello PDF) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

describe('Claude Code through the gateway', () => {
  let workDir = '';
  const pick = (names: string[], body: Record<string, any>) =>
    JSON.stringify(body).includes(FIND_TOOL) && names.includes('ToolSearch')
      ? { name: 'ToolSearch', input: { query: 'select:NotebookEdit' } }
      : names.includes('Write')
        ? { name: 'Write', input: { file_path: path.join(workDir, 'hello.txt'), content: CONTENT } }
        : undefined;
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let readFile = '';

  beforeAll(async () => {
    await ensureTestClients();
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false }, 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'my-claude': { maxOutput: 64000, reasoning: true } }, pick });
    // Reads `readFile` once, then answers (a result with an image is a new turn to this fake, so it counts the reads itself).
    const answered = (body: Record<string, any>) => JSON.stringify(body.contents).includes('"functionResponse"');
    gemini = await startGeminiFake({
      models: { 'gemini-2.5-flash': { thinking: true, gemini3: false }, 'gemini-3-flash-preview': { thinking: true, gemini3: true } },
      apiKey: 'goog-key',
      pick: (names, body) => (names.includes('Read') && !answered(body) ? [{ name: 'Read', args: { file_path: path.join(workDir, readFile) } }] : undefined),
      finalText: 'I read it.',
    });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1', 'gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'my-claude', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          gg: { plugin: 'google', baseURL: gemini.url, apiKey: 'goog-key', models: ['gemini-2.5-flash', 'gemini-3-flash-preview'] },
        },
      },
    });
  }, 900_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages, gemini]) await fake?.close();
  });

  /** `claude -p` in `workDir` on `model`, with one tool allowed, answering in JSON. */
  const claude = (model: string, prompt: string, tool: string) =>
    execa(claudeBin(), ['-p', prompt, '--model', model, '--allowedTools', tool, '--output-format', 'json', '--max-turns', '4'], {
      cwd: workDir,
      env: clientEnv({
        ANTHROPIC_BASE_URL: gw.url,
        ANTHROPIC_AUTH_TOKEN: gw.key!,
        // Its small/fast model (titles, summaries) goes to the same model: no request for an id the gateway lacks.
        ANTHROPIC_SMALL_FAST_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      }),
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });

  it("answers Claude Code's HEAD / probe with 200", async () => {
    expect((await fetch(gw.url, { method: 'HEAD' })).status).toBe(200);
  });

  it.each([
    ['ant/my-claude', () => messages],
    ['oc/gpt-4o-mini', () => chat],
    ['or/gpt-4.1', () => responses],
    // A reasoning model: Claude Code's adaptive thinking as reasoning, its encrypted items paired with their calls on the next turn.
    ['or/gpt-5', () => responses],
  ])('claude -p with %s writes the file', async (model, fakeOf) => {
    const fake = fakeOf();
    workDir = tempDir('gw-claude-code-');
    const run = await claude(model, `Create hello.txt in this directory containing: ${CONTENT}`, 'Write');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${fake.rejections.join(' | ')}\npaths: ${fake.requests.map((r) => `${r.method} ${r.path} ${r.headers['anthropic-beta'] ?? ''}`).join(', ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(fs.readFileSync(path.join(workDir, 'hello.txt'), 'utf8')).toBe(CONTENT);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'Done: the file is written.' });
    if (model === 'ant/my-claude') {
      // The shapes this route is about reached the upstream as Claude Code wrote them.
      const first = fake.requests[0].json as Record<string, any>;
      expect(first.thinking).toMatchObject({ type: 'adaptive' });
      expect(first.messages.some((m: { role: string }) => m.role === 'system')).toBe(true);
    }
  });

  // Claude Code's Read gives an image or a PDF as an image or document block inside the tool_result. On a Gemini model they were
  // dropped (the functionResponse carried only the text, "" for an image): the model never saw the file.
  it.each([
    ['gg/gemini-2.5-flash', 'shot.png', 'image/png', PNG],
    ['gg/gemini-3-flash-preview', 'paper.pdf', 'application/pdf', PDF],
  ])('claude -p with %s reads %s: the file reaches Gemini with the tool result', async (model, file, mimeType, bytes) => {
    workDir = tempDir('gw-claude-code-');
    readFile = file;
    fs.writeFileSync(path.join(workDir, file), bytes);
    gemini.requests.length = 0;
    const run = await claude(model, `Look at ${file}`, 'Read');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${gemini.rejections.join(' | ')}`;
    expect(gemini.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: false, result: 'I read it.' });
    const sent = gemini.requests.at(-1)!.json as { contents: Array<{ role: string; parts: Array<Record<string, any>> }> };
    const results = sent.contents.at(-1)!;
    expect(results.parts[0].functionResponse).toMatchObject({ name: 'Read' });
    const inline = { inlineData: { mimeType, data: bytes.toString('base64') } };
    // Gemini 3 takes it inside the function response; older models beside it, in the same turn (what gemini-cli sends).
    if (model.includes('gemini-3')) expect(results.parts[0].functionResponse.parts, report).toEqual([inline]);
    else expect(results.parts.slice(1), report).toEqual([inline]);
  });

  // A tool that failed (Claude Code's Read of a file that is not there: is_error) reached Gemini as a plain result ({result}),
  // not under `error`, the key Google names for a failed call's details.
  it('claude -p with gg/gemini-2.5-flash reads a missing file: Gemini gets the failure as the error of the function response', async () => {
    workDir = tempDir('gw-claude-code-');
    readFile = 'missing.txt';
    gemini.requests.length = 0;
    const run = await claude('gg/gemini-2.5-flash', 'Look at missing.txt', 'Read');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${gemini.rejections.join(' | ')}`;
    expect(gemini.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    const sent = gemini.requests.at(-1)!.json as { contents: Array<{ parts: Array<Record<string, any>> }> };
    const response = sent.contents.at(-1)!.parts[0].functionResponse.response;
    expect(Object.keys(response), JSON.stringify(response)).toEqual(['error']);
    expect(response.error).toMatch(/does not exist/i);
  });

  // Claude Code defers some tools (defer_loading) and loads them with its ToolSearch tool, whose result names them by
  // tool_reference blocks: Anthropic reads each as the tool's definition. On a converted route the blocks were dropped,
  // so the model got an empty result ("" on Chat, [] on Responses) and never learnt that the tool was loaded.
  it.each([
    ['oc/gpt-4o-mini', () => chat],
    ['or/gpt-4.1', () => responses],
  ])('claude -p with %s loads a deferred tool with ToolSearch: the model gets its definition as the result', async (model, fakeOf) => {
    const fake = fakeOf();
    fake.requests.length = 0;
    workDir = tempDir('gw-claude-code-');
    const run = await claude(model, FIND_TOOL, 'Write');
    const report = `exit ${run.exitCode}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nrejections: ${fake.rejections.join(' | ')}`;
    expect(fake.rejections, report).toEqual([]);
    expect(run.exitCode, report).toBe(0);
    const sent = fake.requests.at(-1)!.json as Record<string, any>;
    const result = model.startsWith('oc/')
      ? sent.messages.find((m: { role: string }) => m.role === 'tool')?.content
      : sent.input.find((item: { type: string }) => item.type === 'function_call_output')?.output;
    const text: string = typeof result === 'string' ? result : (result ?? []).map((part: { text?: string }) => part.text ?? '').join('');
    expect(text.startsWith('<functions>\n<function>') && text.endsWith('</function>\n</functions>'), JSON.stringify(result)).toBe(true);
    const definition = JSON.parse(text.slice('<functions>\n<function>'.length, -'</function>\n</functions>'.length));
    expect(definition).toMatchObject({ name: 'NotebookEdit', description: expect.stringContaining('notebook'), parameters: { type: 'object' } });
    // The tool is in the request's tools from then on (a deferred tool is an ordinary function to another format).
    const names = (sent.tools as Array<Record<string, any>>).map((tool) => tool.name ?? tool.function?.name);
    expect(names).toContain('NotebookEdit');
  });
});
