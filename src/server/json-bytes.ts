import { constants } from 'node:buffer';
import { GatewayError } from '../errors/index.ts';

/** JSON text already serialized (a batch's result line), written by `jsonBytes` as it is. */
export class RawJson {
  constructor(readonly bytes: Buffer) {}

  /** Read back when JSON.stringify meets it (an answer that is not written by `jsonBytes`). */
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/** Text held before it becomes a Buffer: big enough that a large answer is few chunks, small beside the string limit. */
const FLUSH_AT = 1 << 20;

const tooLarge = (what: string, elsewhere: string) =>
  new GatewayError('request_too_large', `${what} would be more than ${constants.MAX_LENGTH} bytes, more than one answer carries; ${elsewhere}.`);

const skipped = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * A JSON value's bytes, written as JSON.stringify writes plain data, in chunks: no string of the
 * whole is made, so an answer may pass what one JavaScript string holds (2^29 characters: a
 * Gemini batch's inlined responses past ~512 MB made JSON.stringify throw). `RawJson` values go
 * in as their bytes. Past what one Buffer holds, a 413 naming `what` and `elsewhere`.
 */
export function jsonBytes(value: unknown, what: string, elsewhere: string): Buffer {
  const chunks: Buffer[] = [];
  let pending = '';
  let total = 0;
  const push = (bytes: Buffer) => {
    total += bytes.length;
    if (total > constants.MAX_LENGTH) throw tooLarge(what, elsewhere);
    chunks.push(bytes);
  };
  const flush = () => {
    if (pending === '') return;
    push(Buffer.from(pending));
    pending = '';
  };
  const put = (text: string) => {
    pending += text;
    if (pending.length >= FLUSH_AT) flush();
  };
  const write = (item: unknown): void => {
    if (item instanceof RawJson) {
      flush();
      push(item.bytes);
    } else if (Array.isArray(item)) {
      put('[');
      item.forEach((element: unknown, i) => {
        if (i > 0) put(',');
        write(skipped(element) ? null : element);
      });
      put(']');
    } else if (item !== null && typeof item === 'object' && !('toJSON' in item)) {
      put('{');
      let first = true;
      for (const [key, field] of Object.entries(item)) {
        if (skipped(field)) continue;
        put(`${first ? '' : ','}${JSON.stringify(key)}:`);
        first = false;
        write(field);
      }
      put('}');
    } else put(JSON.stringify(item));
  };
  write(value);
  flush();
  return Buffer.concat(chunks, total);
}
