import { describe, expect, it } from 'vitest';
import { tellChatChunkEnds, tellChatRecordEnd } from '../../../src/formats/chat/index.ts';
import { RecordReader } from '../../../src/sse/index.ts';

const content = (text: string) => `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}`;
const finish = (spelled: string) => `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},${spelled}}]}`;

/** The chunk as a reader gives it to the relay: its records and the text they were read from. */
function read(wire: string) {
  const reader = new RecordReader();
  reader.push(Buffer.from(wire));
  return { text: reader.text, records: reader.records };
}

const sse = (datas: string[], sep = '\n') => datas.map((data) => `data: ${data}${sep}${sep}`).join('');

describe('tellChatChunkEnds', () => {
  const spellings = [
    '"finish_reason":"stop"',
    '"finish_reason": "stop"',
    '"finish_reason" : "length"',
    '"finish_reason":\t"stop"',
    '"finish_reason":null',
    '"finish_reason": null',
  ];
  const bursts: Array<[string, string]> = [];
  for (const spelled of spellings) {
    bursts.push([`whole stream, ${spelled}`, sse([content(''), content('a "quoted" \\"finish_reason\\":\\"stop\\"'), content('b'), finish(spelled), '{"choices":[],"usage":{"total_tokens":3}}', '[DONE]'])]);
    bursts.push([`finish first, ${spelled}`, sse([finish(spelled), content('a'), content('b'), content('c')])]);
    bursts.push([`two choices, ${spelled}`, sse([content('a'), `{"choices":[{"index":0,${spelled}},{"index":1,"finish_reason":null}]}`, content('b'), content('c')], '\r\n')]);
  }
  bursts.push(['error record', sse([content('a'), content('b'), '{"error":{"message":"boom"}}', content('c')])]);
  bursts.push(['no reason set', sse([content('a'), content('b'), content('c'), content('d')])]);
  bursts.push(['comments and events', `: keep-alive\n\nevent: x\ndata: ${content('a')}\n\n: "finish_reason":"stop"\n\n${sse([content('b'), content('c'), finish('"finish_reason":"stop"')])}`]);
  bursts.push(['data split over lines', `data: {"choices":[{"index":0,"finish_reason"\ndata: :"stop"}]}\n\n${sse([content('a'), content('b'), content('c')])}`]);

  it.each(bursts)('tells the same ends as record by record: %s', (_name, wire) => {
    const { text, records } = read(wire);
    expect(records.length).toBeGreaterThanOrEqual(4);
    expect(tellChatChunkEnds(text, records)).toEqual(records.map((record) => tellChatRecordEnd(record)));
  });

  it('still sees a reason set in a burst where every other chunk carries null', () => {
    const { text, records } = read(sse([content('a'), content('b'), finish('"finish_reason": "stop"'), content('c'), '[DONE]']));
    expect(tellChatChunkEnds(text, records)).toEqual([undefined, undefined, 'finished', undefined, 'complete']);
  });
});
