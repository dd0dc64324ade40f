import { GatewayError } from '../errors/index.ts';
import type { ModelSpec } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { ImageRequest } from './decode-image-request.ts';

/**
 * A size as the client asked for it (Imagen's aspect ratio `16:9` for `1792x1024`), for refusals;
 * undefined when the client has no way to ask for it.
 */
export type SizeAs = (size: string) => string | undefined;

const asSent: SizeAs = (size) => size;

/** The sizes a client can ask for, as it asks for them. */
function sizesAs(sizes: readonly string[], sizeAs: SizeAs): string[] {
  return sizes.map(sizeAs).filter((size): size is string => size !== undefined);
}

/**
 * The image options a request breaks against what a model declares: field → message naming
 * the allowed values (its sizes as `sizeAs` names them). Options the model does not declare pass
 * unchecked; a size the client did not send (the default) is not held against the model.
 */
export function imageOptionProblems(spec: ModelSpec, request: ImageRequest, sent: ReadonlySet<string>, sizeAs: SizeAs = asSent): Record<string, string> {
  const problems: Record<string, string> = {};
  const oneOf = (field: string, value: string | undefined, allowed: string[] | undefined, shown = allowed) => {
    if (value === undefined || !allowed || allowed.includes(value)) return;
    problems[field] = shown && shown.length > 0 ? `must be one of ${shown.join(', ')} for ${spec.id}` : `cannot be set for ${spec.id} (it makes none of the sizes this field names): leave it out`;
  };
  if (sent.has('size')) oneOf('size', request.size, spec.sizes, spec.sizes && sizesAs(spec.sizes, sizeAs));
  oneOf('quality', request.quality, spec.qualities);
  oneOf('style', request.style, spec.styles);
  if (spec.n && (request.n < spec.n.min || request.n > spec.n.max)) {
    problems.n = spec.n.min === spec.n.max ? `must be ${spec.n.min} for ${spec.id}` : `must be between ${spec.n.min} and ${spec.n.max} for ${spec.id}`;
  }
  return problems;
}

/**
 * The candidates whose declared options accept the request, in order; when none does, a 422
 * `validation_error` naming each bad field and the first candidate's allowed values (its sizes as
 * `sizeAs` names them).
 */
export function fitImageOptions(candidates: CatalogModel[], request: ImageRequest, sent: ReadonlySet<string>, sizeAs: SizeAs = asSent): CatalogModel[] {
  let first: Record<string, string> | undefined;
  const fitting = candidates.filter((model) => {
    const problems = imageOptionProblems(model.spec, request, sent, sizeAs);
    first ??= problems;
    return Object.keys(problems).length === 0;
  });
  if (fitting.length === 0 && first) {
    const [field, message] = Object.entries(first)[0];
    const { sizes, qualities, styles, n } = candidates[0].spec;
    throw new GatewayError('validation_error', `Invalid parameter '${field}': ${message}`, {
      details: { fields: first, model: candidates[0].id, allowed: { sizes: sizes && sizesAs(sizes, sizeAs), qualities, styles, n } },
    });
  }
  return fitting;
}
