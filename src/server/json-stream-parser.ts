import { StringDecoder } from 'node:string_decoder';
import { GatewayError, validationError } from '../errors/index.ts';

/**
 * An incremental JSON parser for large request bodies: it is fed the body's bytes as they
 * arrive, a slice at a time, and stops at a deadline so the event loop is never held for long
 * (docs/limits.md, "Large JSON bodies"). It builds exactly what `JSON.parse` builds (same
 * values, key order, `__proto__` as an own property, last duplicate key wins) and refuses,
 * as soon as it meets them, more values than `maxValues` (413) and containers nested deeper
 * than `maxDepth` (422 naming the top-level field), before the rest of the body is even read.
 */

// Parser states.
const VALUE = 0; // a value is expected
const ARRAY_FIRST = 1; // after '[': a value or ']'
const OBJECT_FIRST = 2; // after '{': a key or '}'
const KEY = 3; // after ',' in an object: a key
const COLON = 4; // after a key
const AFTER = 5; // after a value inside a container: ',' or the closing bracket
const END = 6; // after the root value: whitespace only
const STRING = 7;
const ESCAPE = 8;
const UNICODE = 9;
const NUMBER = 10;
const LITERAL = 11;

const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };
const LITERALS: Record<number, [string, unknown]> = { 0x74: ['true', true], 0x66: ['false', false], 0x6e: ['null', null] };

type Container = unknown[] | Record<string, unknown>;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/** 413 naming the bound on values (docs/limits.md). */
export function tooManyValues(max: number): GatewayError {
  return new GatewayError('request_too_large', `The request body holds more than ${max} JSON values (objects, arrays, strings, numbers, booleans and nulls); the limit is ${max} (server.bodyLimits.jsonValues).`, {
    details: { limit_json_values: max },
  });
}

/** 422 naming the top-level field that nests deeper than `max` levels. */
export function tooDeep(field: string, max: number): GatewayError {
  return validationError({ [field]: `must not nest objects and arrays deeper than ${max} levels` });
}

/** Incremental JSON object parser; see the module comment. */
export class JsonStreamParser {
  private state = VALUE;
  private readonly stack: Container[] = [];
  /** The pending key of each open object (undefined for arrays). */
  private readonly keys: Array<string | undefined> = [];
  private root: Record<string, unknown> | undefined;
  private values = 0;
  /** Bytes consumed by earlier feeds (for error positions). */
  private consumed = 0;
  /** The absolute position of the current chunk's first byte. */
  private chunkBase = 0;
  /** Where the number being read starts in the current chunk. */
  private numberFrom = 0;
  private text = '';
  private stringIsKey = false;
  /** True while the decoder holds bytes of the current string (it crossed a chunk boundary). */
  private decoding = false;
  private readonly decoder = new StringDecoder('utf8');
  private unicode = 0;
  private unicodeDigits = 0;
  private literal = '';
  private literalValue: unknown = null;
  private literalAt = 0;

  constructor(
    private readonly maxValues: number,
    private readonly maxDepth: number,
  ) {}

  /**
   * Consumes `chunk` from `start` until its end or until `deadline` (performance.now()) passes;
   * returns how far it got (the caller feeds the rest later). Throws the envelope for a bad body.
   */
  feed(chunk: Buffer, start: number, deadline: number): number {
    const end = chunk.length;
    this.chunkBase = this.consumed - start;
    if (this.state === NUMBER) this.numberFrom = start;
    let i = start;
    let checked = i;
    while (i < end) {
      if (i - checked >= 4096) {
        checked = i;
        if (performance.now() > deadline) break;
      }
      const state = this.state;
      if (state === STRING) {
        i = this.readString(chunk, i, end);
        continue;
      }
      const c = chunk[i];
      if (state === NUMBER) {
        if (isNumberByte(c)) {
          i += 1;
          continue;
        }
        this.endNumber(chunk, i);
        continue;
      }
      if (state === LITERAL) {
        if (c !== this.literal.charCodeAt(this.literalAt)) this.fail(c, i);
        this.literalAt += 1;
        i += 1;
        if (this.literalAt === this.literal.length) this.emit(this.literalValue);
        continue;
      }
      if (state === ESCAPE) {
        this.readEscape(c, i);
        i += 1;
        continue;
      }
      if (state === UNICODE) {
        this.readUnicodeDigit(c, i);
        i += 1;
        continue;
      }
      i += 1;
      if (isSpace(c)) continue;
      this.structural(c, i - 1);
    }
    // A number or string cut by the chunk's end (or the deadline) keeps what it has so far.
    if (this.state === NUMBER) this.text += chunk.toString('latin1', this.numberFrom, i);
    this.consumed += i - start;
    return i;
  }

  /** The parsed body once every byte was fed; throws when the JSON is incomplete. */
  finish(): Record<string, unknown> {
    if (this.state === NUMBER) {
      this.numberFrom = 0;
      this.endNumber(Buffer.alloc(0), 0);
    }
    if (this.state === END && this.root) return this.root;
    if (this.state === VALUE && this.stack.length === 0 && this.root === undefined && this.values === 0) {
      throw new GatewayError('bad_request', 'The request body is empty; a JSON object is required.');
    }
    throw new GatewayError('bad_request', 'The request body is not valid JSON: Unexpected end of JSON input');
  }

  private structural(c: number, at: number): void {
    switch (this.state) {
      case VALUE:
      case ARRAY_FIRST:
        if (c === 0x5d && this.state === ARRAY_FIRST) return this.close(false, at, c);
        return this.startValue(c, at);
      case OBJECT_FIRST:
        if (c === 0x7d) return this.close(true, at, c);
      // falls through: a key
      case KEY:
        if (c !== 0x22) this.fail(c, at);
        return this.startString(true);
      case COLON:
        if (c !== 0x3a) this.fail(c, at);
        this.state = VALUE;
        return;
      case AFTER: {
        const inObject = this.keys[this.keys.length - 1] !== undefined;
        if (c === 0x2c) {
          this.state = inObject ? KEY : VALUE;
          return;
        }
        if (c === (inObject ? 0x7d : 0x5d)) return this.close(inObject, at, c);
        return this.fail(c, at);
      }
      default:
        return this.fail(c, at);
    }
  }

  private startValue(c: number, at: number): void {
    if (this.stack.length === 0 && c !== 0x7b) {
      if (c === 0x5b || c === 0x22 || c === 0x2d || (c >= 0x30 && c <= 0x39) || LITERALS[c]) {
        throw new GatewayError('bad_request', 'The request body must be a JSON object.');
      }
      this.fail(c, at);
    }
    if (c === 0x7b || c === 0x5b) return this.open(c === 0x7b);
    if (c === 0x22) return this.startString(false);
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.state = NUMBER;
      this.text = '';
      this.numberFrom = at;
      return;
    }
    const literal = LITERALS[c];
    if (!literal) this.fail(c, at);
    this.state = LITERAL;
    [this.literal, this.literalValue] = literal;
    this.literalAt = 1;
  }

  private count(): void {
    this.values += 1;
    if (this.values > this.maxValues) throw tooManyValues(this.maxValues);
  }

  private open(isObject: boolean): void {
    if (this.stack.length + 1 > this.maxDepth) throw tooDeep(this.keys[0] ?? 'body', this.maxDepth);
    const container: Container = isObject ? {} : [];
    if (this.stack.length === 0) {
      this.count();
      this.root = container as Record<string, unknown>;
    } else {
      this.emit(container);
    }
    this.stack.push(container);
    // An object's pending key is '' until its first key is read (never undefined: that marks arrays).
    this.keys.push(isObject ? '' : undefined);
    this.state = isObject ? OBJECT_FIRST : ARRAY_FIRST;
  }

  private close(isObject: boolean, at: number, c: number): void {
    if ((this.keys[this.keys.length - 1] !== undefined) !== isObject) this.fail(c, at);
    this.stack.pop();
    this.keys.pop();
    this.state = this.stack.length === 0 ? END : AFTER;
  }

  /** A complete value: into its container (the root is placed by `open`). */
  private emit(value: unknown): void {
    this.count();
    const top = this.stack[this.stack.length - 1];
    if (Array.isArray(top)) {
      top.push(value);
    } else {
      const key = this.keys[this.keys.length - 1]!;
      // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(top, key, { value, writable: true, enumerable: true, configurable: true });
      else top[key] = value;
    }
    this.state = AFTER;
  }

  private startString(isKey: boolean): void {
    this.state = STRING;
    this.stringIsKey = isKey;
    this.text = '';
  }

  /** Reads string bytes up to the closing quote, an escape or the chunk's end. */
  private readString(chunk: Buffer, from: number, end: number): number {
    let i = from;
    let c = 0;
    while (i < end) {
      c = chunk[i];
      if (c === 0x22 || c === 0x5c || c < 0x20) break;
      i += 1;
    }
    if (i > from) this.appendBytes(chunk, from, i, i === end);
    if (i === end) return i;
    if (c < 0x20) this.fail(c, i);
    if (this.decoding) {
      this.text += this.decoder.end();
      this.decoding = false;
    }
    if (c === 0x5c) {
      this.state = ESCAPE;
      return i + 1;
    }
    this.endString();
    return i + 1;
  }

  private appendBytes(chunk: Buffer, from: number, to: number, cut: boolean): void {
    // A string cut by the chunk's end may end inside a UTF-8 sequence: the decoder keeps it.
    if (cut || this.decoding) {
      this.text += this.decoder.write(chunk.subarray(from, to));
      this.decoding = true;
    } else {
      this.text += chunk.toString('utf8', from, to);
    }
  }

  private endString(): void {
    const text = this.text;
    this.text = '';
    if (this.stringIsKey) {
      this.keys[this.keys.length - 1] = text;
      this.state = COLON;
    } else {
      this.emit(text);
    }
  }

  private readEscape(c: number, at: number): void {
    if (c === 0x75) {
      this.state = UNICODE;
      this.unicode = 0;
      this.unicodeDigits = 0;
      return;
    }
    const char = ESCAPES[c];
    if (char === undefined) this.fail(c, at);
    this.text += char;
    this.state = STRING;
  }

  private readUnicodeDigit(c: number, at: number): void {
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) this.fail(c, at);
    this.unicode = this.unicode * 16 + digit;
    this.unicodeDigits += 1;
    if (this.unicodeDigits === 4) {
      // Lone surrogates too, as JSON.parse does: one UTF-16 code unit per escape.
      this.text += String.fromCharCode(this.unicode);
      this.state = STRING;
    }
  }

  private endNumber(chunk: Buffer, at: number): void {
    const text = this.text + chunk.toString('latin1', this.numberFrom, at);
    this.text = '';
    if (!NUMBER_TEXT.test(text)) throw this.syntax(`Invalid number '${text.slice(0, 32)}'`);
    this.emit(Number(text));
  }

  private fail(c: number, at: number): never {
    const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
    throw this.syntax(`Unexpected token ${shown} at position ${this.chunkBase + at}`);
  }

  private syntax(reason: string): GatewayError {
    return new GatewayError('bad_request', `The request body is not valid JSON: ${reason}`);
  }
}
