// The toy format's provider: brings the format (one registry line: `wireFormats`) and answers in
// it offline, like `mock`. It refuses a body with a `model` key (the toy wire carries the model in
// the path) and echoes the last user line, so a test sees what reached the upstream.
import { definePlugin, GatewayError, type ChatCall, type UpstreamResponse } from 'gateway/plugin-kit';
import { toyFormat } from './index.ts';
import { frameRecord } from './frame-binary.ts';

function reply(call: ChatCall): { text: string; used: { in: number; out: number } } {
  const say = (call.body.say ?? []) as Array<{ who: string; text: string }>;
  const last = [...say].reverse().find((line) => line.who === 'user');
  return { text: `toy heard: ${last?.text ?? ''}`, used: { in: 7, out: 3 } };
}

export default definePlugin({
  name: 'toy',
  formats: ['toy'],
  wireFormats: [toyFormat],
  models: [{ id: 'toy-1', type: 'chat', capabilities: ['streaming'] }],
  setup() {
    return {
      async chat(call: ChatCall): Promise<UpstreamResponse> {
        if (call.format !== 'toy') throw new GatewayError('internal_error', `toy plugin called with ${call.format}`);
        const body = JSON.parse(call.rawBody ?? JSON.stringify(call.body)) as Record<string, unknown>;
        if ('model' in body || !Array.isArray(body.say)) {
          const bytes = Buffer.from(JSON.stringify({ trouble: { code: 'bad_body', message: `not a toy body: ${call.rawBody}` } }));
          return { status: 400, headers: { 'content-type': 'application/json' }, body: (async function* () { yield bytes; })() };
        }
        const { text, used } = reply(call);
        const id = 'toy_1';
        if (!call.stream) {
          const bytes = Buffer.from(JSON.stringify({ id, model: call.model, reply: text, why: 'done', used }));
          return { status: 200, headers: { 'content-type': 'application/json' }, body: (async function* () { yield bytes; })() };
        }
        const frames = Buffer.concat([
          frameRecord({ event: 'begin', data: JSON.stringify({ id, model: call.model }) }),
          ...text.split(' ').map((word, i) => frameRecord({ event: 'piece', data: JSON.stringify({ text: i === 0 ? word : ` ${word}` }) })),
          frameRecord({ event: 'end', data: JSON.stringify({ why: 'done', used }) }),
        ]);
        // Cut at odd offsets: the gateway must find frame boundaries itself.
        return {
          status: 200,
          headers: { 'content-type': 'application/x-toy-frames' },
          body: (async function* () {
            for (let at = 0; at < frames.length; at += 7) yield frames.subarray(at, at + 7);
          })(),
        };
      },
    };
  },
});
