/**
 * Hosted web search across formats: Anthropic's server tool (`web_search_20250305`,
 * `server_tool_use` + `web_search_tool_result`, `web_search_result_location` citations) ↔
 * Responses (`web_search`, `web_search_call` items, `url_citation` annotations) ↔ Chat
 * (`web_search_options`, `annotations`) ↔ Gemini (`googleSearch`, `groundingMetadata`: spans in
 * UTF-8 bytes), non-streamed and streamed, and the opaque search data back to Anthropic on the
 * next turn.
 */
import { describe, expect, it } from 'vitest';
import { getCodec, getFormat } from '../../src/formats/index.ts';
import type { ChatRequest } from '../../src/ir/types.ts';
import { parseEvents, readFixture, readJsonFixture, runStream, sseRecords, translateStream } from './stream-helpers.ts';

type Json = Record<string, any>;

const messages = getCodec('messages');
const responses = getCodec('responses');
const chat = getCodec('chat');
const gemini = getCodec('gemini');
const request: ChatRequest = { model: 'claude', system: [], messages: [], stream: false };
const anthropic = readJsonFixture<Json>('messages/response-web-search.json');
const openai = readJsonFixture<Json>('responses/response-web-search.json');
const NODE_URL = 'https://nodejs.org/en/blog/release/v24.0.0';

describe('the tool, both ways', () => {
  it('Responses web_search (Codex: external_web_access) → Anthropic web_search_20250305 with domains and location', () => {
    const ir = responses.decodeRequest({
      model: 'm',
      input: 'When was Node 24 released?',
      tools: [{ type: 'web_search', external_web_access: true, filters: { allowed_domains: ['nodejs.org'] }, user_location: { type: 'approximate', country: 'DE', city: 'Berlin' }, search_context_size: 'high' }],
    });
    const body = messages.encodeRequest({ ...ir, extra: undefined }, { upstreamModel: 'claude', defaultMaxTokens: 1024 });
    expect(body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['nodejs.org'], user_location: { type: 'approximate', country: 'DE', city: 'Berlin' } }]);
  });

  it('web_search_preview counts as the same tool', () => {
    expect(responses.decodeRequest({ model: 'm', input: 'x', tools: [{ type: 'web_search_preview', search_context_size: 'low' }] }).webSearch).toEqual({ contextSize: 'low' });
  });

  it('Anthropic web_search_20250305 → Responses web_search, max_uses as max_tool_calls (the only built-in tool, so the same bound)', () => {
    const ir = messages.decodeRequest({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['nodejs.org'] }] });
    expect(ir.webSearch).toEqual({ maxUses: 3, allowedDomains: ['nodejs.org'] });
    const body = responses.encodeRequest({ ...ir, extra: undefined }, { upstreamModel: 'gpt-5', defaultMaxTokens: 1024 });
    expect(body.tools).toEqual([{ type: 'web_search', filters: { allowed_domains: ['nodejs.org'] } }]);
    expect(body.max_tool_calls).toBe(3);
    // No max_uses, no bound; function tools are not built-in tools and do not change it.
    const open = messages.decodeRequest({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'web_search_20250305', name: 'web_search' }, { name: 'f', input_schema: { type: 'object' } }] });
    expect(responses.encodeRequest({ ...open, extra: undefined }, { upstreamModel: 'gpt-5', defaultMaxTokens: 1024 }).max_tool_calls).toBeUndefined();
  });

  it("a Responses client's own max_tool_calls and hosted tools go through as sent", () => {
    const ir = responses.decodeRequest({ model: 'm', input: 'x', max_tool_calls: 7, tools: [{ type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }] });
    const body = responses.encodeRequest(ir, { upstreamModel: 'gpt-5', defaultMaxTokens: 1024 });
    expect(body.max_tool_calls).toBe(7);
  });

  it('Chat web_search_options → Anthropic server tool', () => {
    const ir = chat.decodeRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }], web_search_options: { search_context_size: 'low', user_location: { type: 'approximate', approximate: { country: 'FR' } } } });
    const body = messages.encodeRequest({ ...ir, extra: undefined }, { upstreamModel: 'claude', defaultMaxTokens: 1024 });
    expect(body.tools).toEqual([{ type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', country: 'FR' } }]);
  });
});

describe('an Anthropic answer to a Responses client', () => {
  const ir = messages.decodeResponse(anthropic);
  const body = responses.encodeResponse(ir, request) as Json;

  it('the search is a completed web_search_call with its query and sources, between the messages', () => {
    expect(body.output.map((item: Json) => item.type)).toEqual(['message', 'web_search_call', 'message']);
    const call = body.output[1];
    expect(call).toMatchObject({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'node 24 release date', sources: [{ type: 'url', url: NODE_URL }, { type: 'url', url: 'https://example.org/node-24' }] } });
    expect(call.id).toMatch(/^ws_/);
  });

  it('the cited text carries a url_citation over its whole span', () => {
    const parts = body.output[2].content as Json[];
    expect(parts.map((part) => part.text).join('')).toBe('Node.js 24 was released on May 6, 2025.');
    expect(parts[1].annotations).toEqual([{ type: 'url_citation', start_index: 0, end_index: 14, url: NODE_URL, title: 'Node.js 24.0.0 (Current)' }]);
    expect(parts[0].annotations).toEqual([]);
  });

  it('web_search_requests is usage', () => {
    expect(ir.usage.webSearchRequests).toBe(1);
  });

  it('sent back as input, the search reaches Anthropic again with every encrypted_content byte-exact', () => {
    const next = responses.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'When was Node 24 released?' }, ...body.output, { role: 'user', content: 'And Node 26?' }] });
    const upstream = messages.encodeRequest({ ...next, extra: undefined }, { upstreamModel: 'claude', defaultMaxTokens: 1024 }) as Json;
    const assistant = upstream.messages[1].content as Json[];
    expect(assistant.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'text', 'text', 'text']);
    expect(assistant[1]).toEqual(anthropic.content[1]);
    expect(assistant[2].content.map((result: Json) => result.encrypted_content)).toEqual(anthropic.content[2].content.map((result: Json) => result.encrypted_content));
    // url_citation has no place for encrypted_index: the cited text goes back as plain text.
    expect(assistant[4]).toEqual({ type: 'text', text: 'on May 6, 2025' });
  });

  it('streamed: web_search_call in_progress, searching, completed, then annotation.added on the cited text', () => {
    const events = parseEvents(translateStream(messages, responses, request, readFixture('messages/stream-web-search.sse.txt'), 7));
    const names = events.map((event) => event.event);
    const search = names.indexOf('response.web_search_call.in_progress');
    expect(names.slice(search - 1, search + 4)).toEqual(['response.output_item.added', 'response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed', 'response.output_item.done']);
    const done = events[search + 3]!.data;
    expect(done.item).toMatchObject({ type: 'web_search_call', status: 'completed', action: { query: 'node 24 release date' } });
    const annotation = events.find((event) => event.event === 'response.output_text.annotation.added')!.data;
    expect(annotation).toMatchObject({ annotation_index: 0, annotation: { type: 'url_citation', start_index: 0, end_index: 14, url: NODE_URL } });
    const completed = events.at(-1)!.data.response;
    expect(completed.output.map((item: Json) => item.type)).toEqual(['message', 'web_search_call', 'message']);
    expect(completed.output[1].id).toBe(done.item.id);
  });

  it('a Messages client of the same stream gets the server tool blocks and citations back (as Anthropic sent them)', () => {
    const events = parseEvents(translateStream(messages, messages, request, readFixture('messages/stream-web-search.sse.txt'), 5));
    const blocks = events.filter((event) => event.event === 'content_block_start').map((event) => event.data.content_block.type);
    expect(blocks).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'text', 'text', 'text']);
    const result = events.find((event) => event.data.content_block?.type === 'web_search_tool_result')!.data.content_block;
    expect(result).toEqual(anthropic.content[2]);
    const citation = events.find((event) => event.data.delta?.type === 'citations_delta')!.data.delta.citation;
    expect(citation).toEqual(anthropic.content[4].citations[0]);
    expect(events.find((event) => event.event === 'message_delta')!.data.usage.server_tool_use).toEqual({ web_search_requests: 1 });
  });
});

describe('an OpenAI answer to a Messages client', () => {
  it('the web_search_call is server_tool_use + web_search_tool_result; the cited span is its own text block', () => {
    const body = messages.encodeResponse(responses.decodeResponse(openai), request) as Json;
    expect(body.content.map((block: Json) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text', 'text', 'text']);
    expect(body.content[0]).toEqual({ type: 'server_tool_use', id: 'ws_68af0009a1', name: 'web_search', input: { query: 'node 24 release date' } });
    expect(body.content[1].content).toEqual([{ type: 'web_search_result', url: NODE_URL, title: '', encrypted_content: '', page_age: null }]);
    expect(body.content.slice(2).map((block: Json) => block.text)).toEqual(['Node.js 24 was released ', 'on May 6, 2025', '.']);
    expect(body.content[3].citations).toEqual([{ type: 'web_search_result_location', url: NODE_URL, title: 'Node.js 24.0.0 (Current)', cited_text: 'on May 6, 2025', encrypted_index: '' }]);
  });

  it('streamed: the search blocks, then a citations_delta inside the text', () => {
    const sse = [
      'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_1","model":"gpt-5","created_at":1}}\n',
      `event: response.output_item.done\ndata: ${JSON.stringify({ type: 'response.output_item.done', output_index: 0, item: openai.output[0] })}\n`,
      'event: response.output_item.added\ndata: {"type":"response.output_item.added","output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}\n',
      'event: response.content_part.added\ndata: {"type":"response.content_part.added","output_index":1,"item_id":"msg_1","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}\n',
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","output_index":1,"item_id":"msg_1","content_index":0,"delta":"Node.js 24 was released on May 6, 2025."}\n',
      `event: response.output_text.annotation.added\ndata: ${JSON.stringify({ type: 'response.output_text.annotation.added', output_index: 1, item_id: 'msg_1', content_index: 0, annotation_index: 0, annotation: openai.output[1].content[0].annotations[0] })}\n`,
      'event: response.output_text.done\ndata: {"type":"response.output_text.done","output_index":1,"item_id":"msg_1","content_index":0,"text":"Node.js 24 was released on May 6, 2025."}\n',
      `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { ...openai, output: [] } })}\n`,
    ].join('\n');
    expect(runStream(responses, sse, 11).map((part) => part.type)).toEqual(['start', 'web-search-start', 'web-search-end', 'text-start', 'text-delta', 'text-citation', 'text-end', 'finish', 'usage', 'end']);
    const events = parseEvents(translateStream(responses, messages, request, sse, 9));
    expect(events.filter((event) => event.event === 'content_block_start').map((event) => event.data.content_block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(events.find((event) => event.data.delta?.type === 'citations_delta')!.data.delta.citation).toMatchObject({ type: 'web_search_result_location', url: NODE_URL });
  });
});

describe('an OpenAI web_search_call is a billed search (usage.webSearchRequests)', () => {
  const searchDone = (item: Json, index: number) => `event: response.output_item.done\ndata: ${JSON.stringify({ type: 'response.output_item.done', output_index: index, item })}\n`;
  const completed = (output: unknown[]) => `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { ...openai, output } })}\n`;
  const streamUsage = (sse: string) => runStream(responses, sse, 11).find((part) => part.type === 'usage');
  const second = { ...openai.output[0], id: 'ws_68af0009a2', action: { type: 'search', query: 'node 26' } };

  it('a JSON answer counts its web_search_call items; none, no count', () => {
    expect(responses.decodeResponse(openai).usage).toEqual({ inputTokens: 8200, outputTokens: 40, webSearchRequests: 1 });
    expect(responses.decodeResponse({ ...openai, output: [openai.output[0], second, openai.output[1]] }).usage.webSearchRequests).toBe(2);
    expect(responses.decodeResponse({ ...openai, output: [openai.output[1]] }).usage).toEqual({ inputTokens: 8200, outputTokens: 40 });
  });

  it('a stream counts the items done, or the completed output: the larger, never both', () => {
    const items = [searchDone(openai.output[0], 0), searchDone(second, 1)].join('\n');
    expect(streamUsage(`${items}\n${completed([])}`)).toMatchObject({ usage: { webSearchRequests: 2 } });
    expect(streamUsage(`${items}\n${completed([openai.output[0], second, openai.output[1]])}`)).toMatchObject({ usage: { webSearchRequests: 2 } });
    expect(streamUsage(completed([openai.output[0], openai.output[1]]))).toMatchObject({ usage: { webSearchRequests: 1 } });
    expect(streamUsage(completed([openai.output[1]]))).toEqual({ type: 'usage', usage: { inputTokens: 8200, outputTokens: 40 } });
  });

  it('the same-format passthrough reads the count from the answer and from response.completed', () => {
    expect(responses.readPassthroughResponse(openai).usage).toEqual({ inputTokens: 8200, outputTokens: 40, webSearchRequests: 1 });
    const tap = responses.createUsageTap();
    for (const record of sseRecords(completed([openai.output[0], second, openai.output[1]]))) tap.push(record);
    expect(tap.info.usage?.webSearchRequests).toBe(2);
  });
});

describe('Chat clients see the sources as annotations', () => {
  it('an Anthropic answer: url_citation over the cited span of the joined content', () => {
    const body = chat.encodeResponse(messages.decodeResponse(anthropic), request) as Json;
    const message = body.choices[0].message;
    const start = message.content.indexOf('on May 6, 2025');
    expect(message.annotations).toEqual([{ type: 'url_citation', url_citation: { start_index: start, end_index: start + 14, url: NODE_URL, title: 'Node.js 24.0.0 (Current)' } }]);
  });

  it('streamed: one annotations delta once the cited text is complete', () => {
    const events = parseEvents(translateStream(messages, chat, { ...request, stream: true }, readFixture('messages/stream-web-search.sse.txt'), 13));
    const annotated = events.filter((event) => event.data.choices?.[0]?.delta?.annotations);
    expect(annotated).toHaveLength(1);
    const content = events.map((event) => event.data.choices?.[0]?.delta?.content ?? '').join('');
    const start = content.indexOf('on May 6, 2025');
    expect(annotated[0]!.data.choices[0].delta.annotations).toEqual([{ type: 'url_citation', url_citation: { start_index: start, end_index: start + 14, url: NODE_URL, title: 'Node.js 24.0.0 (Current)' } }]);
  });
});

describe("Gemini's Google Search grounding (the gemini face says hostedWebSearch)", () => {
  // A recorded shape: one query, redirect URIs as chunks, supports whose spans are UTF-8 bytes of the answer (the dash is 3 bytes).
  const TEXT = 'Node.js 24 was released on May 6, 2025 — it became LTS in October.';
  const span = (cited: string) => {
    const start = Buffer.byteLength(TEXT.slice(0, TEXT.indexOf(cited)));
    return { startIndex: start, endIndex: start + Buffer.byteLength(cited), text: cited };
  };
  const NODE = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC';
  const OTHER = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/DeF';
  const grounding = {
    webSearchQueries: ['node 24 release date'],
    searchEntryPoint: { renderedContent: '<div>…</div>' },
    groundingChunks: [{ web: { uri: NODE, title: 'nodejs.org' } }, { web: { uri: OTHER, title: 'example.org' } }],
    groundingSupports: [
      { segment: span('Node.js 24 was released on May 6, 2025'), groundingChunkIndices: [0] },
      { segment: span('it became LTS in October.'), groundingChunkIndices: [0, 1] },
    ],
  };
  const answer = {
    candidates: [{ content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP', index: 0, groundingMetadata: grounding }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 20, totalTokenCount: 32 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'resp_g1',
  };
  const lts = TEXT.indexOf('it became');

  it('the face runs a hosted web search: a Responses web_search reaches Gemini as googleSearch', () => {
    expect(getFormat('gemini').hostedWebSearch).toBe(true);
    const ir = responses.decodeRequest({ model: 'm', input: 'When was Node 24 released?', tools: [{ type: 'web_search' }] });
    expect(gemini.encodeRequest({ ...ir, extra: undefined }, { upstreamModel: 'gemini-2.5-flash' }).tools).toEqual([{ googleSearch: {} }]);
  });

  it('an answer: the search part before the text, its sources; citations in UTF-16 units of the text', () => {
    const ir = gemini.decodeResponse(answer);
    expect(ir.content.map((part) => part.type)).toEqual(['web_search', 'text']);
    expect(ir.content[0]).toMatchObject({ type: 'web_search', query: 'node 24 release date', sources: [{ url: NODE, title: 'nodejs.org' }, { url: OTHER, title: 'example.org' }] });
    expect(ir.content[1]).toMatchObject({
      citations: [
        { type: 'url', url: NODE, title: 'nodejs.org', startIndex: 0, endIndex: 38 },
        { type: 'url', url: NODE, title: 'nodejs.org', startIndex: lts, endIndex: TEXT.length },
        { type: 'url', url: OTHER, title: 'example.org', startIndex: lts, endIndex: TEXT.length },
      ],
    });
  });

  it('to a Responses client: a web_search_call and url_citation annotations over the same characters', () => {
    const body = responses.encodeResponse(gemini.decodeResponse(answer), request) as Json;
    expect(body.output.map((item: Json) => item.type)).toEqual(['web_search_call', 'message']);
    expect(body.output[0]).toMatchObject({ status: 'completed', action: { type: 'search', query: 'node 24 release date' } });
    const text = body.output[1].content[0];
    expect(text.annotations.map((a: Json) => text.text.slice(a.start_index, a.end_index))).toEqual(['Node.js 24 was released on May 6, 2025', 'it became LTS in October.', 'it became LTS in October.']);
  });

  it('back to a Gemini client: groundingMetadata with the same queries, chunks and byte spans', () => {
    const body = gemini.encodeResponse(gemini.decodeResponse(answer), request) as Json;
    expect(body.candidates[0].content.parts).toEqual([{ text: TEXT }]);
    const { searchEntryPoint: _, ...rest } = grounding;
    expect(body.candidates[0].groundingMetadata).toEqual(rest);
  });

  it("an Anthropic answer to a Gemini client: its search and cited span as grounding, byte spans over the joined text", () => {
    const body = gemini.encodeResponse(messages.decodeResponse(anthropic), request) as Json;
    const text = body.candidates[0].content.parts.map((part: Json) => part.text).join('');
    const metadata = body.candidates[0].groundingMetadata;
    expect(metadata.webSearchQueries).toEqual(['node 24 release date']);
    expect(metadata.groundingChunks[0]).toEqual({ web: { uri: NODE_URL, title: expect.any(String) } });
    const support = metadata.groundingSupports[0];
    expect(Buffer.from(text).subarray(support.segment.startIndex, support.segment.endIndex).toString()).toBe('on May 6, 2025');
    expect(metadata.groundingChunks[support.groundingChunkIndices[0]].web.uri).toBe(NODE_URL);
  });

  it('streamed from Gemini (grounding on the last chunk): a text citation of the open block, then the search; a Responses client gets both', () => {
    const half = TEXT.indexOf(' — ');
    const chunk = (body: Json) => `data: ${JSON.stringify(body)}\n\n`;
    const sse = [
      chunk({ candidates: [{ content: { role: 'model', parts: [{ text: TEXT.slice(0, half) }] }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'resp_g1' }),
      chunk({ ...answer, candidates: [{ ...answer.candidates[0], content: { role: 'model', parts: [{ text: TEXT.slice(half) }] } }] }),
    ].join('');
    const parts = runStream(gemini, sse, 17);
    expect(parts.map((part) => part.type)).toEqual(['start', 'text-start', 'text-delta', 'text-delta', 'text-citation', 'text-citation', 'text-citation', 'text-end', 'web-search-start', 'web-search-end', 'finish', 'usage', 'end']);
    const events = parseEvents(translateStream(gemini, responses, { ...request, stream: true }, sse, 17));
    const completed = events.at(-1)!.data.response;
    expect(completed.output.map((item: Json) => item.type)).toEqual(['message', 'web_search_call']);
    expect(completed.output[0].content[0].annotations).toHaveLength(3);
  });

  it('streamed from Anthropic to a Gemini client: the last record carries the grounding', () => {
    const events = parseEvents(translateStream(messages, gemini, { ...request, stream: true }, readFixture('messages/stream-web-search.sse.txt'), 7));
    const text = events.map((event) => (event.data.candidates?.[0]?.content?.parts ?? []).map((part: Json) => part.text ?? '').join('')).join('');
    const metadata = events.at(-1)!.data.candidates[0].groundingMetadata;
    expect(metadata.webSearchQueries).toEqual(['node 24 release date']);
    const support = metadata.groundingSupports[0];
    expect(Buffer.from(text).subarray(support.segment.startIndex, support.segment.endIndex).toString()).toBe('on May 6, 2025');
    expect(events.slice(0, -1).every((event) => event.data.candidates?.[0]?.groundingMetadata === undefined)).toBe(true);
  });
});
