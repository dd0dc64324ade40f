import type OpenAI from 'openai';
import { toFile } from 'openai';
import { until } from './until.ts';

type Json = Record<string, any>;

/**
 * Runs Chat lines (`[custom_id, model, user text]`) as one `/v1/chat/completions` batch through
 * the gateway and returns `[custom_id, status, answer text]` of each output line, sorted; the
 * batch must complete.
 */
export async function runChatBatch(openai: OpenAI, lines: Array<[string, string, string]>): Promise<Array<[string, number, string]>> {
  const jsonl = lines
    .map(([id, model, text]) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: text }] } }))
    .join('\n');
  const input = await openai.files.create({ file: await toFile(Buffer.from(jsonl), 'in.jsonl'), purpose: 'batch' });
  const created = await openai.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  const batch = await until('the batch to end', async () => {
    const b = await openai.batches.retrieve(created.id);
    return ['completed', 'failed', 'expired', 'cancelled'].includes(b.status) ? b : undefined;
  });
  if (batch.status !== 'completed') throw new Error(`the batch ended ${batch.status}`);
  const out = (await (await openai.files.content(batch.output_file_id!)).text()).trim().split('\n').map((l) => JSON.parse(l) as Json);
  return out.map((l): [string, number, string] => [l.custom_id, l.response.status_code, l.response.body.choices[0].message.content]).sort();
}
