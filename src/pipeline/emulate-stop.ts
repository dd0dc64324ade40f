import type { ChatResponse, ContentPart, StreamPart, TextPart, TokenLogprob } from '../ir/index.ts';

/**
 * Stop sequences for an upstream that cannot take them (a Responses upstream; an OpenAI reasoning
 * model, which refuses `stop`): the gateway cuts the answer's text at the first one, as the
 * vendors do — the stop sequence itself left out, nothing after it, the finish `stop` with the
 * sequence named (Anthropic's `stop_reason: "stop_sequence"`). Only answer text is searched, each
 * text block on its own (reasoning and tool arguments are not text the client asked to stop).
 */
export function cutAtStop(response: ChatResponse, stops: readonly string[]): ChatResponse {
  for (let i = 0; i < response.content.length; i += 1) {
    const part = response.content[i];
    if (part.type !== 'text') continue;
    const found = firstStop(part.text, stops);
    if (!found) continue;
    const content: ContentPart[] = response.content.slice(0, i);
    if (found.at > 0) content.push(cutText(part, found.at));
    return { ...response, content, finishReason: 'stop', stopSequence: found.stop };
  }
  return response;
}

/**
 * The stream's side of cutAtStop: text is held back while it could be the start of a stop sequence
 * (no part of one is ever sent across chunk boundaries); at a match the text block and the answer
 * end there, and of what the upstream still sends only usage, errors and the end go on.
 */
export class StopCutter {
  private held = '';
  private stopped = false;
  private readonly longest: number;

  constructor(private readonly stops: readonly string[]) {
    this.longest = Math.max(...stops.map((stop) => stop.length));
  }

  push(part: StreamPart): StreamPart[] {
    if (this.stopped) return part.type === 'usage' || part.type === 'error' || part.type === 'end' ? [part] : [];
    if (part.type === 'text-delta') return this.text(part);
    const held = this.flush();
    return held ? [held, part] : [part];
  }

  private text(part: Extract<StreamPart, { type: 'text-delta' }>): StreamPart[] {
    const text = this.held + part.text;
    const found = firstStop(text, this.stops);
    if (found) {
      this.stopped = true;
      this.held = '';
      const before = text.slice(0, found.at);
      return [...(before ? [{ type: 'text-delta' as const, text: before }] : []), { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: found.stop }];
    }
    const keep = this.heldBack(text);
    this.held = text.slice(text.length - keep);
    const sent = text.slice(0, text.length - keep);
    if (!sent) return [];
    // Log probabilities belong to the upstream's chunk: they go with it only when it goes out whole.
    return [sent === part.text ? part : { type: 'text-delta', text: sent }];
  }

  /** How many characters at the end of `text` could begin a stop sequence. */
  private heldBack(text: string): number {
    for (let n = Math.min(this.longest - 1, text.length); n > 0; n -= 1) {
      const tail = text.slice(text.length - n);
      if (this.stops.some((stop) => stop.startsWith(tail))) return n;
    }
    return 0;
  }

  private flush(): StreamPart | undefined {
    if (!this.held) return undefined;
    const text = this.held;
    this.held = '';
    return { type: 'text-delta', text };
  }
}

/** The stop sequences a gateway emulates: the non-empty ones (an empty one would stop before anything). */
export function stopsToEmulate(stop: readonly string[] | undefined): string[] | undefined {
  const stops = stop?.filter((s) => s !== '');
  return stops && stops.length > 0 ? stops : undefined;
}

function firstStop(text: string, stops: readonly string[]): { at: number; stop: string } | undefined {
  let found: { at: number; stop: string } | undefined;
  for (const stop of stops) {
    const at = text.indexOf(stop);
    if (at >= 0 && (found === undefined || at < found.at)) found = { at, stop };
  }
  return found;
}

function cutText(part: TextPart, at: number): TextPart {
  const cut: TextPart = { ...part, text: part.text.slice(0, at) };
  if (part.logprobs) cut.logprobs = tokensWithin(part.logprobs, at);
  if (part.citations) {
    const kept = part.citations.filter((citation) => citation.startIndex === undefined || (citation.endIndex ?? citation.startIndex) <= at);
    if (kept.length > 0) cut.citations = kept;
    else delete cut.citations;
  }
  return cut;
}

/** The leading tokens whose text lies within the first `at` characters. */
function tokensWithin(tokens: TokenLogprob[], at: number): TokenLogprob[] {
  let length = 0;
  let count = 0;
  while (count < tokens.length && length + tokens[count].token.length <= at) length += tokens[count++].token.length;
  return tokens.slice(0, count);
}
