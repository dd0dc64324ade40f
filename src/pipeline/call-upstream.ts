import { GatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/registry.ts';
import type { WireFormat } from '../ir/types.ts';
import { mapTransportError } from '../plugin-kit/http-client.ts';
import { readBody } from '../plugin-kit/read-body.ts';
import type { ChatCall, UpstreamResponse } from '../plugin-kit/types.ts';
import type { CatalogModel } from '../providers/types.ts';
import { mapUpstreamError } from './map-upstream-error.ts';

/** An upstream response that answered 2xx. */
export interface UpstreamSuccess {
  response: UpstreamResponse;
  /** Aborts the upstream call (client gone, total timeout). */
  abort: (reason?: unknown) => void;
  /** Clears the total-time guard once the exchange is over. */
  done: () => void;
  signal: AbortSignal;
}

/**
 * Calls a provider's chat and returns its 2xx response, or throws the mapped GatewayError.
 * The total timeout and the client's abort both cancel the upstream call.
 */
export async function callUpstream(
  model: CatalogModel,
  call: Omit<ChatCall, 'signal'>,
  clientSignal: AbortSignal,
): Promise<UpstreamSuccess> {
  const chat = model.provider.instance.chat;
  if (!chat) throw new GatewayError('bad_request', `The model '${model.id}' does not support chat requests.`);
  const controller = new AbortController();
  const onClientAbort = () => controller.abort(new GatewayError('bad_request', 'The client closed the connection.'));
  clientSignal.addEventListener('abort', onClientAbort, { once: true });
  const timer = setTimeout(() => {
    controller.abort(new GatewayError('provider_timeout', `The provider '${model.provider.id}' did not finish within ${model.provider.timeouts.total} ms.`));
  }, model.provider.timeouts.total);
  timer.unref();
  const done = () => {
    clearTimeout(timer);
    clientSignal.removeEventListener('abort', onClientAbort);
  };
  let response: UpstreamResponse;
  try {
    response = await chat({ ...call, signal: controller.signal });
  } catch (error) {
    done();
    throw mapTransportError(error, controller.signal);
  }
  if (response.status >= 200 && response.status < 300) {
    return { response, abort: (reason) => controller.abort(reason), done, signal: controller.signal };
  }
  try {
    const text = (await readBody(response.body)).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    throw mapUpstreamError(model.provider.id, response.status, getCodec(call.format as WireFormat).decodeError(response.status, parsed), response.headers);
  } catch (error) {
    throw error instanceof GatewayError ? error : mapTransportError(error, controller.signal);
  } finally {
    done();
  }
}
