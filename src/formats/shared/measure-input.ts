/**
 * An image at most, as the providers document it: Anthropic about 1,600 tokens (1.15
 * megapixels), OpenAI GPT-4o/4.1 high detail 1,445–2,489, Gemini 258 a tile. The credit hold's
 * allowance for every image, document page or audio clip (docs/billing.md, "The hold rule").
 */
export const MEDIA_TOKENS = 2_500;

/** Framing the providers add around each message or tool (role markers, separators); 8 bounds OpenAI's documented 3–4. */
const PER_NODE = 8;
/** The request's own framing (OpenAI's reply priming is 3). */
const PER_REQUEST = 16;
/** What an estimate adds for a media part (its text is not known). */
const MEDIA_CHARS = 200;

/** What billing reads of a request's content without decoding it: a token bound and an estimate. */
export interface InputMeasure {
  /** ≥ what `boundInputTokens` gives for the decoded request, whatever format serves it. */
  bound: number;
  /** Text length / 4, for an upstream that never reports usage. */
  estimate: number;
}

/**
 * How a format's body shows what the walk cannot tell by itself: which objects are media (a
 * `type` key for most formats; Gemini's parts have an `inlineData` or `fileData` member), which
 * keys hold JSON the IR keeps as text, and what the IR adds to an object the body leaves out
 * (Gemini: the id made up for a call that has none).
 */
export interface InputShape {
  isMedia(object: Record<string, unknown>): boolean;
  /** Added to the common set (`parameters`, `input_schema`, `schema`, `input`, `arguments`). */
  jsonKeys?: ReadonlySet<string>;
  /** Bytes the IR adds to this object beyond its own strings. */
  allowance?(object: Record<string, unknown>): number;
}

/** The shape of formats whose media parts say so by `type` (Chat, Responses, Messages). */
export function mediaByType(types: ReadonlySet<string>): InputShape {
  return { isMedia: (object) => typeof object.type === 'string' && types.has(object.type) };
}

/** Keys whose string value is a name from a fixed set (`"role":"user"`, `"type":"text"`): framing, covered by `PER_NODE`. */
const ENUM_KEYS = new Set(['role', 'type']);
/** Keys whose object value the IR carries as JSON text (tool schemas, a tool call's input): bounded by its JSON's length. */
const JSON_KEYS = new Set(['parameters', 'input_schema', 'schema', 'input', 'arguments']);

/**
 * Measures the parts of a body that become input (messages, system, tools, …) in one walk of
 * the parsed JSON, with no IR, as `boundInputTokens` measures the IR (so a passthrough is held
 * what a conversion would be): every token of text is at least one UTF-8 byte (byte-level BPE),
 * so the UTF-8 bytes of every string (but role and type names), `PER_NODE` for every object
 * (a message, a part, a tool: the providers' framing), the JSON length of a schema or a tool
 * call's input, and `MEDIA_TOKENS` for every object the format's `shape` says is media bound
 * what any upstream bills for them.
 */
export function measureInput(parts: readonly unknown[], shape: InputShape): InputMeasure {
  const walk = new InputWalk(shape);
  for (const part of parts) {
    if (part === undefined || part === null) continue;
    // A bare string (Responses `input`, a `system` string) is a message of its own.
    if (typeof part === 'string') walk.bytes += PER_NODE;
    walk.visit(part, false);
  }
  return { bound: PER_REQUEST + walk.bytes + walk.media * MEDIA_TOKENS, estimate: Math.ceil((walk.chars + walk.media * MEDIA_CHARS) / 4) };
}

class InputWalk {
  bytes = 0;
  chars = 0;
  media = 0;

  constructor(private readonly shape: InputShape) {}

  /** `inMedia`: inside a media part, whose strings (URLs, base64) are bytes to bound but no text to estimate. */
  visit(value: unknown, inMedia: boolean): void {
    if (typeof value === 'string') {
      this.bytes += Buffer.byteLength(value, 'utf8');
      if (!inMedia) this.chars += value.length;
    } else if (typeof value === 'number') {
      this.bytes += String(value).length;
    } else if (Array.isArray(value)) {
      for (const item of value) this.visit(item, inMedia);
    } else if (typeof value === 'object' && value !== null) {
      this.object(value as Record<string, unknown>, inMedia);
    }
  }

  private object(object: Record<string, unknown>, inMedia: boolean): void {
    this.bytes += PER_NODE + (this.shape.allowance?.(object) ?? 0);
    const media = this.shape.isMedia(object);
    if (media) this.media += 1;
    for (const key in object) {
      const value = object[key];
      if (ENUM_KEYS.has(key) && typeof value === 'string') continue;
      if ((JSON_KEYS.has(key) || this.shape.jsonKeys?.has(key)) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        const length = Buffer.byteLength(JSON.stringify(value), 'utf8');
        this.bytes += PER_NODE + length;
        this.chars += length;
      } else this.visit(value, inMedia || media);
    }
  }
}

/** Every vendor spells its web-search tool `web_search…` (Responses `web_search_preview`, Anthropic `web_search_20250305`). */
export function isWebSearchType(type: string): boolean {
  return type.startsWith('web_search');
}
