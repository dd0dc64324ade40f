import type { ChatResponse, ContentPart, StreamPart, TextPart, TokenLogprob } from '../ir/index.ts';

/**
 * Stop sequences for an upstream that cannot take them (a Responses upstream; an OpenAI reasoning
 * model, which refuses `stop`): the gateway cuts the answer's text at the first one, as the
 * vendors do — the stop sequence itself left out, nothing after it, the finish `stop` with the
 * sequence named (Anthropic's `stop_reason: "stop_sequence"`). Only answer text is searched, each
 * text block on its own (reasoning and tool arguments are not text the client asked to stop); the
 * answer stops on the first sequence written in full, as a model stops.
 */
export function cutAtStop(response: ChatResponse, stops: readonly string[]): ChatResponse {
  // One matcher for the answer (its tables are built once), started afresh for each text block.
  let matcher: StopMatcher | undefined;
  for (let i = 0; i < response.content.length; i += 1) {
    const part = response.content[i];
    if (part.type !== 'text') continue;
    if (matcher) matcher.reset();
    else matcher = new StopMatcher(stops);
    const found = firstStop(part.text, matcher);
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
  private readonly matcher: StopMatcher;

  constructor(stops: readonly string[]) {
    this.matcher = new StopMatcher(stops);
  }

  push(part: StreamPart): StreamPart[] {
    if (this.stopped) return part.type === 'usage' || part.type === 'error' || part.type === 'end' ? [part] : [];
    if (part.type === 'text-delta') return this.text(part);
    const held = this.flush();
    return held ? [held, part] : [part];
  }

  private text(part: Extract<StreamPart, { type: 'text-delta' }>): StreamPart[] {
    const from = this.held.length;
    const text = this.held + part.text;
    const found = firstStop(text, this.matcher, from);
    if (found) {
      this.stopped = true;
      this.held = '';
      const before = text.slice(0, found.at);
      return [...(before ? [{ type: 'text-delta' as const, text: before }] : []), { type: 'text-end' }, { type: 'finish', finishReason: 'stop', stopSequence: found.stop }];
    }
    const keep = this.matcher.pending();
    this.held = text.slice(text.length - keep);
    const sent = text.slice(0, text.length - keep);
    if (!sent) return [];
    // Log probabilities belong to the upstream's chunk: they go with it only when it goes out whole.
    return [sent === part.text ? part : { type: 'text-delta', text: sent }];
  }

  /** What is held goes out when its block ends (or anything else comes): a stop never spans blocks. */
  private flush(): StreamPart | undefined {
    this.matcher.reset();
    if (!this.held) return undefined;
    const text = this.held;
    this.held = '';
    return { type: 'text-delta', text };
  }
}

/** The most stop sequences emulated for one request (OpenAI takes 4, Gemini 5): the work per character of the answer grows with them. */
export const MAX_EMULATED_STOPS = 64;
/** The longest stop sequence emulated: its matcher keeps a table as long as it, for every request naming it. */
export const MAX_EMULATED_STOP_CHARS = 10_000;

/** The stop sequences a gateway emulates: the non-empty ones (an empty one would stop before anything). */
export function stopsToEmulate(stop: readonly string[] | undefined): string[] | undefined {
  const stops = stop?.filter((s) => s !== '');
  return stops && stops.length > 0 ? stops : undefined;
}

/** Where the first stop sequence to be written ends `text` (fed from `from`: what came before is in the matcher). */
function firstStop(text: string, matcher: StopMatcher, from = 0): { at: number; stop: string } | undefined {
  for (let i = from; i < text.length; i += 1) {
    const stop = matcher.step(text.charCodeAt(i));
    if (stop !== undefined) return { at: i + 1 - stop.length, stop };
  }
  return undefined;
}

/**
 * Stop sequences matched as the text is written, one character at a time, each by its prefix
 * function (Knuth–Morris–Pratt): linear in the text however long the sequences are, and the first
 * sequence completed is the one the answer stops on, as a model stops on the first it writes.
 */
class StopMatcher {
  private readonly fallback: Uint32Array[];
  private readonly states: number[];

  constructor(private readonly stops: readonly string[]) {
    this.fallback = stops.map(prefixFunction);
    this.states = stops.map(() => 0);
  }

  /** Feeds one UTF-16 code unit; the stop sequence it completes, if any. */
  step(code: number): string | undefined {
    for (let k = 0; k < this.stops.length; k += 1) {
      const seq = this.stops[k];
      let state = this.states[k];
      while (state > 0 && seq.charCodeAt(state) !== code) state = this.fallback[k][state - 1];
      if (seq.charCodeAt(state) === code) state += 1;
      if (state === seq.length) return this.stops[k];
      this.states[k] = state;
    }
    return undefined;
  }

  /** Characters at the end of what was fed that could still begin a stop sequence. */
  pending(): number {
    let most = 0;
    for (const state of this.states) if (state > most) most = state;
    return most;
  }

  reset(): void {
    this.states.fill(0);
  }
}

/** For each prefix of `seq` (UTF-16 code units), the longest proper prefix of it that is also its suffix. */
function prefixFunction(seq: string): Uint32Array {
  const out = new Uint32Array(seq.length);
  for (let i = 1, k = 0; i < seq.length; i += 1) {
    while (k > 0 && seq.charCodeAt(i) !== seq.charCodeAt(k)) k = out[k - 1];
    if (seq.charCodeAt(i) === seq.charCodeAt(k)) k += 1;
    out[i] = k;
  }
  return out;
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
