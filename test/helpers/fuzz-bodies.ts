/**
 * Malformed request bodies for the fuzz suite, as fast-check arbitraries. Bodies are built as
 * raw text or bytes (not through JSON.stringify), so they can carry what a serializer never
 * writes: 5,000-deep nesting, `1e400`, `-0`, lone surrogate escapes, duplicate and
 * `__proto__` keys, cut JSON, invalid UTF-8, broken multipart framing.
 */
import fc from 'fast-check';

/** One request of the fuzz run. */
export interface FuzzBody {
  /** What kind of attack it is (for the failure report). */
  label: string;
  contentType: string | undefined;
  body: string | Uint8Array;
}

const HOLE = '\u0000HOLE\u0000';
const HOLE_JSON = JSON.stringify(HOLE);

function deepText(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i += 1) {
    const object = kind === 'object' || (kind === 'mixed' && i % 2 === 0);
    open += object ? '{"a":' : '[';
    close = (object ? '}' : ']') + close;
  }
  return `${open}1${close}`;
}

/** A JSON value as text: structural attacks first, then ordinary random JSON. */
export const attackText: fc.Arbitrary<{ label: string; text: string }> = fc.oneof(
  fc.record({ depth: fc.integer({ min: 65, max: 6_000 }), kind: fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'> }).map(({ depth, kind }) => ({ label: `deep ${kind} ${depth}`, text: deepText(depth, kind) })),
  fc.record({ size: fc.integer({ min: 5_000, max: 600_000 }), char: fc.constantFrom('a', 'é', '😀', '\\n', '\\u0000', '"') }).map(({ size, char }) => ({
    label: `huge string ${size}×${char}`,
    text: `"${(char === '"' ? '\\"' : char).repeat(size)}"`,
  })),
  fc.constantFrom('null', 'true', 'false', '0', '-1', '[]', '{}', '[1,"2",null]', '{"a":{}}', '""', '" "').map((text) => ({ label: `wrong type ${text}`, text })),
  fc.constantFrom('1e308', '-1e308', '1e400', '-1e400', '-0', '0e-400', '9007199254740993', '123456789012345678901234567890', '"NaN"', '"Infinity"', '"-Infinity"', '"1e308"', '-0.0', '1E+2', '0.1e1')
    .map((text) => ({ label: `number ${text}`, text })),
  fc.constantFrom(
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"__proto__":null}',
    '{"prototype":1,"__proto__":[],"toString":"x","valueOf":{},"hasOwnProperty":0}',
    '[{"__proto__":{"isAdmin":true}}]',
  ).map((text) => ({ label: `prototype keys ${text.slice(0, 30)}`, text })),
  fc.constantFrom('"\\ud800"', '"\\udfff tail"', '"\\ud83d\\ude00\\ud83d"', '"\\u0000\\u0001\\u001f"', '"\u202e\u200b\ufeff"', '"\\\\\\""', '"a\\/b"').map((text) => ({ label: `unicode ${text}`, text })),
  fc.string({ unit: 'binary', maxLength: 200 }).map((s) => ({ label: 'random unicode string', text: JSON.stringify(s) })),
  fc.jsonValue({ maxDepth: 4 }).map((v) => ({ label: 'random json', text: JSON.stringify(v) ?? 'null' })),
);

/** A key to set: one the route knows, a prototype key, or a random one. */
function keyArb(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...known), fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString'), fc.string({ minLength: 1, maxLength: 20 }));
}

/** Paths into the template where an attack value may go (`messages.0.content`). */
function setAt(template: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(template)) {
    const copy = [...template];
    copy[Number(head)] = setAt(copy[Number(head)], rest, value);
    return copy;
  }
  const base = typeof template === 'object' && template !== null ? template : {};
  return { ...(base as Record<string, unknown>), [head]: setAt((base as Record<string, unknown>)[head], rest, value) };
}

/** The template with `attack` at `path`, as text (the attack goes in raw, unescaped). */
function withAttack(template: Record<string, unknown>, path: string[], attack: string): string {
  return JSON.stringify(setAt(template, path, HOLE)).replace(HOLE_JSON, () => attack);
}

/** JSON bodies for a route: its valid template with one part attacked, or no template at all. */
export function jsonBodies(template: Record<string, unknown>, paths: string[][]): fc.Arbitrary<FuzzBody> {
  const known = Object.keys(template);
  const json = (label: string, body: string | Uint8Array): FuzzBody => ({ label, contentType: 'application/json', body });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...paths), attackText).map(([path, a]) => json(`${path.join('.')} = ${a.label}`, withAttack(template, path, a.text))) },
    { weight: 3, arbitrary: fc.tuple(keyArb(known), attackText).map(([key, a]) => json(`${key} = ${a.label}`, withAttack(template, [key], a.text))) },
    { weight: 1, arbitrary: fc.tuple(keyArb(known), attackText).map(([key, a]) => json(`duplicate ${key}`, `${JSON.stringify(template).slice(0, -1)},${JSON.stringify(key)}:${a.text},${JSON.stringify(key)}:1}`)) },
    { weight: 1, arbitrary: fc.constantFrom(...known).map((key) => json(`without ${key}`, JSON.stringify({ ...template, [key]: undefined }))) },
    { weight: 2, arbitrary: attackText.map((a) => json(`whole body = ${a.label}`, a.text)) },
    { weight: 1, arbitrary: fc.nat().map((n) => { const text = JSON.stringify(template); return json('cut JSON', text.slice(0, n % text.length)); }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3_000 }).map((bytes) => json('random bytes', bytes)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // BOM + {}
        Buffer.concat([Buffer.from('{"model":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from('"}')]),
        Buffer.from(''),
        Buffer.from('   '),
        Buffer.from('{"a":1}{"b":2}'),
        Buffer.from('{"a":1,}'),
        Buffer.from(`{"a":${'9'.repeat(100_000)}}`),
        Buffer.from(`[${'{},'.repeat(50_000)}{}]`),
      ).map((bytes) => json('odd bytes', bytes)),
    },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', undefined).map((type) => ({ label: `content-type ${type}`, contentType: type, body: JSON.stringify(template) })) },
  );
}

const CRLF = '\r\n';

interface Part {
  name: string;
  value: string | Uint8Array;
  filename?: string;
  type?: string;
}

function encodeParts(boundary: string, parts: Part[], options: { close?: boolean; lineEnd?: string } = {}): Uint8Array {
  const nl = options.lineEnd ?? CRLF;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}${nl}Content-Disposition: ${disposition}${nl}${part.type ? `Content-Type: ${part.type}${nl}` : ''}${nl}`));
    chunks.push(Buffer.from(part.value));
    chunks.push(Buffer.from(nl));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--${nl}`));
  return Buffer.concat(chunks);
}

/** Multipart bodies for an upload route: its valid parts with one attacked, or broken framing. */
export function multipartBodies(valid: Part[]): fc.Arbitrary<FuzzBody> {
  const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW';
  const type = `multipart/form-data; boundary=${boundary}`;
  const form = (label: string, parts: Part[], options?: { close?: boolean; lineEnd?: string; contentType?: string }): FuzzBody => ({
    label,
    contentType: options?.contentType ?? type,
    body: encodeParts(boundary, parts, options),
  });
  const names = valid.map((p) => p.name);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ minLength: 1, maxLength: 12 })), attackText).map(([name, a]) =>
        form(`part ${name} = ${a.label}`, [...valid.filter((p) => p.name !== name), { name, value: a.text }]),
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 5_000 }).map((bytes) => form('file = random bytes', [...valid.filter((p) => p.filename === undefined), { name: valid.find((p) => p.filename)?.name ?? 'file', value: bytes, filename: 'x.bin', type: 'application/octet-stream' }])) },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 300 }).map((n) => form(`${n} parts`, [...valid, ...Array.from({ length: n }, (_, i) => ({ name: `p${i}`, value: 'x' }))])) },
    { weight: 1, arbitrary: fc.integer({ min: 129, max: 5_000 }).map((n) => form(`name of ${n}`, [...valid, { name: 'n'.repeat(n), value: 'x' }])) },
    { weight: 1, arbitrary: fc.integer({ min: 65_537, max: 400_000 }).map((n) => form(`text part of ${n}`, [...valid, { name: 'prompt', value: 'p'.repeat(n) }])) },
    { weight: 1, arbitrary: fc.constant(form('no closing boundary', valid, { close: false })) },
    { weight: 1, arbitrary: fc.constant(form('LF line ends', valid, { lineEnd: '\n' })) },
    { weight: 1, arbitrary: fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=other', 'application/json', 'multipart/mixed; boundary=x').map((contentType) => form(`content-type ${contentType}`, valid, { contentType })) },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 4_000 }).map((bytes) => ({ label: 'random bytes', contentType: type, body: Buffer.concat([Buffer.from(`--${boundary}\r\n`), Buffer.from(bytes)]) })),
    },
    { weight: 1, arbitrary: fc.nat().map((n) => { const body = encodeParts(boundary, valid); return { label: 'cut multipart', contentType: type, body: body.subarray(0, n % body.length) }; }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--${boundary}--\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="model"; name="x"\r\n\r\nm\r\n--${boundary}--\r\n`,
        `--${boundary}\r\nGarbage-Header\r\n\r\nvalue\r\n--${boundary}--\r\n`,
        `--${boundary}--\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\n{"polluted":true}\r\n--${boundary}--\r\n`,
      ).map((text) => ({ label: `odd framing ${text.slice(30, 70)}`, contentType: type, body: text })),
    },
  );
}
