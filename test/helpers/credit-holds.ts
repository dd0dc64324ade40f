/** Shared by the credit-hold e2e tests (file store and PostgreSQL). */

/** 1 credit a token, input and output. */
export const PER_TOKEN = { input: 1000, output: 1000 };
/** The 5-character prompt. */
export const FIVE_CHARS = 'spend';

export interface Answer {
  status: number;
  requestId: string | null;
  code?: string;
}

/** One Chat Completions request; what came back. */
export async function chatOnce(url: string, key: string, options: { model?: string; content: string; max_tokens?: number }): Promise<Answer> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: options.model ?? 'mock/echo', messages: [{ role: 'user', content: options.content }], ...(options.max_tokens ? { max_tokens: options.max_tokens } : {}) }),
  });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, requestId: res.headers.get('x-request-id'), code: body.error?.code };
}

/** The balance GET /v1/credits reports. */
export async function creditsOf(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  const { data } = (await res.json()) as { data: { credits: { balance: number } } };
  return data.credits.balance;
}
