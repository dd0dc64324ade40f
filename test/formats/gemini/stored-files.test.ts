import { describe, expect, it } from 'vitest';
import { decodeGeminiRequest } from '../../../src/formats/gemini/index.ts';
import { findStoredFiles, inlineStoredFiles, storedFileId } from '../../../src/formats/gemini/stored-files.ts';

const find = (body: Record<string, unknown>) => findStoredFiles(body, JSON.stringify(body));

describe("Gemini fileData naming the gateway's own files", () => {
  it('tells its URIs (any host but Google, the File name) from Google files and other URLs', () => {
    expect(storedFileId('http://127.0.0.1:8080/v1beta/files/fileabc123')).toBe('fileabc123');
    expect(storedFileId('https://gw.example.com/ai/v1beta/files/file-Xy_9')).toBe('file-Xy_9');
    expect(storedFileId('files/fileabc123')).toBe('fileabc123');
    expect(storedFileId('https://generativelanguage.googleapis.com/v1beta/files/abc123')).toBeUndefined();
    expect(storedFileId('gs://bucket/files/abc')).toBeUndefined();
    expect(storedFileId('https://www.youtube.com/watch?v=abc')).toBeUndefined();
    expect(storedFileId('http://127.0.0.1:8080/v1beta/files/abc:download')).toBeUndefined();
    expect(storedFileId('files/a/b')).toBeUndefined();
  });

  it('finds them once per part naming one, in contents and in function responses, in either spelling; a body without files/ is not walked', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ fileData: { fileUri: 'files/one', mimeType: 'image/png' } }, { text: 'x' }, { file_data: { file_uri: 'http://h/v1beta/files/two' } }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {}, parts: [{ fileData: { fileUri: 'files/one' } }] } }] },
        { parts: [{ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/g' } }] },
      ],
    };
    expect(find(body)).toEqual(['one', 'two', 'one']);
    expect(findStoredFiles(body, '{"contents":[]}')).toEqual([]);
    expect(find({ contents: 'not a list' })).toEqual([]);
  });

  it('inlines each as inlineData with its own mimeType (else the file\'s), keeping the part\'s other fields and everything else as written', () => {
    const google = { fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/g', mimeType: 'video/mp4' } };
    const body = {
      contents: [
        { role: 'user', parts: [{ fileData: { fileUri: 'files/one', mimeType: 'image/jpeg' }, videoMetadata: { fps: 1 } }, google, { file_data: { file_uri: 'files/two' } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true }, parts: [{ fileData: { fileUri: 'files/two' } }] } }] },
      ],
      generationConfig: { temperature: 0 },
    };
    const files = new Map([
      ['one', { mimeType: 'image/png', data: 'AAAA' }],
      ['two', { mimeType: 'application/pdf', data: 'BBBB' }],
    ]);
    expect(inlineStoredFiles(body, files)).toEqual({
      contents: [
        { role: 'user', parts: [{ inlineData: { mimeType: 'image/jpeg', data: 'AAAA' }, videoMetadata: { fps: 1 } }, google, { inlineData: { mimeType: 'application/pdf', data: 'BBBB' } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true }, parts: [{ inlineData: { mimeType: 'application/pdf', data: 'BBBB' } }] } }] },
      ],
      generationConfig: { temperature: 0 },
    });
    expect(body.contents[0].parts[0]).toHaveProperty('fileData');
  });

  it('a text file inline is a text document in the IR (a Chat upstream takes it as text); invalid base64 there is a 400', () => {
    const text = Buffer.from('héllo\n').toString('base64');
    const request = decodeGeminiRequest({ contents: [{ parts: [{ inlineData: { mimeType: 'text/markdown', data: text } }] }] }, { model: 'm', stream: false });
    expect(request.messages[0].content[0]).toEqual({ type: 'file', source: { kind: 'text', mediaType: 'text/markdown', data: 'héllo\n' } });
    expect(() => decodeGeminiRequest({ contents: [{ parts: [{ inlineData: { mimeType: 'text/plain', data: '***' } }] }] }, { model: 'm', stream: false })).toThrow(/must be base64/);
  });

  it('a text file inline in URL-safe base64 (what google-genai for Python sends; Google takes either alphabet, padded or not) is read too', () => {
    // Before: a 400 'must be base64' for any text whose encoding has a '-' or '_'.
    const text = '??>??> ok';
    const data = Buffer.from(text).toString('base64url');
    expect(data).toMatch(/[-_]/);
    const request = decodeGeminiRequest({ contents: [{ parts: [{ inlineData: { mimeType: 'text/plain', data } }] }] }, { model: 'm', stream: false });
    expect(request.messages[0].content[0]).toEqual({ type: 'file', source: { kind: 'text', mediaType: 'text/plain', data: text } });
    // An image too goes on in the standard alphabet, padded (Anthropic and OpenAI take no other).
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);
    const image = decodeGeminiRequest({ contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: bytes.toString('base64url') } }] }] }, { model: 'm', stream: false });
    expect(image.messages[0].content[0]).toEqual({ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: bytes.toString('base64') } });
  });
});
