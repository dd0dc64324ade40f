import type { H3Event } from 'h3';
import { getRouterParam } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { requestState } from '../context.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';
import { TEMP_IMAGES } from './images.ts';

/**
 * GET /v1/temp-images/<id>: an image made with `response_format: url`. No key is needed:
 * the id is 40 random characters, so the URL itself is the credential (as with OpenAI's
 * signed image URLs). Gone after the configured TTL (default 1 hour) → 404.
 */
function tempImageHandler(deps: ServerDeps) {
  return async (event: H3Event): Promise<Response> => {
    const name = getRouterParam(event, 'name') ?? '';
    const image = await deps.media.tempImages.get(name);
    if (!image) throw new GatewayError('not_found', 'This image does not exist or has expired (temporary image URLs last one hour by default).');
    const maxAge = Math.max(0, Math.floor((image.expiresAt - deps.clock.now()) / 1000));
    return new Response(image.data as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        'content-type': image.contentType,
        'content-length': String(image.data.byteLength),
        'cache-control': `private, max-age=${maxAge}`,
        'x-request-id': requestState(event).ids.requestId,
      },
    });
  };
}

export function tempImageRoutes(deps: ServerDeps): RouteDef[] {
  return [{ method: 'GET', path: `${TEMP_IMAGES}/:name`, handler: tempImageHandler(deps) }];
}
