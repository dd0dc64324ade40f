import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, toGatewayError, isGatewayError } from '../errors/index.ts';
import { getCodec, getFormat } from '../formats/index.ts';
import type { AuthContext } from '../accounts/index.ts';
import { admitCall, decodeCall, encodeCall, namesGatewayFiles, readCall, storedFilesOf, type CallBody, type ExchangeCall, type ExchangeDeps } from '../exchange/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import { estimateInputTokens, failedAnswerSettlement, type Settlement } from '../pipeline/index.ts';
import type { BatchCapability, NativeBatchPhase, NativeBatchRef, NativeBatchRequest, NativeBatchResult } from '../plugin-kit/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import { servesChat } from '../routing/index.ts';
import type { BatchLineRecord, BatchRecord } from '../store/index.ts';
import { mapTransportError, upstreamError, isUpstreamHttpError } from '../upstream/index.ts';
import { failedLineResponse } from './failed-line-response.ts';
import { callBodyOfLine, formatOfEndpoint } from './format-of-endpoint.ts';
import { finishBatch, lineRequestId, type BatchEnd } from './finish-batch.ts';
import type { BatchInputLine } from './validate-input.ts';

/** An exchange's deps (lines share the router, so the breakers and latency of live traffic), and more: */
export interface NativeBatchDeps extends ExchangeDeps {
  onLine?: (outcome: 'completed' | 'failed' | 'expired') => void;
}

/** What a native batch keeps in its record (`native`): enough to resume polling after a restart. */
export interface NativeBatchState {
  /** The provider whose batch API runs the batch. */
  provider: string;
  /** The wire format the lines were converted into. */
  format: WireFormat;
  /** The upstream batch, once submitted (its id and the plugin's state). */
  upstream: NativeBatchRef | null;
  /** The last phase the upstream reported (internal; never shown to callers). */
  phase: NativeBatchPhase | null;
  /** The upstream was asked to cancel (the caller cancelled, or the completion window passed). */
  cancelSent: boolean;
  /** The gateway cancelled the upstream because the batch's completion window passed. */
  windowPassed: boolean;
  /** A submit was started: after a crash, the upstream may hold the batch without the record knowing its id. */
  submitting?: boolean;
}

const EXPIRED_MESSAGE = 'This request could not be executed before the completion window expired.';
const CANCELLED_MESSAGE = 'This request was not run: the batch was cancelled.';
/** The longest the runner sleeps between looks at the record (a cancel is noticed within this). */
const LOOK_MS = 1000;

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The `custom_id` a line is submitted under (upstreams limit custom ids to `[A-Za-z0-9_-]{1,64}`). */
export function upstreamCustomId(index: number): string {
  return `line-${index}`;
}

function indexOfCustomId(customId: string): number | undefined {
  const m = /^line-(\d+)$/.exec(customId);
  return m ? Number(m[1]) : undefined;
}

/**
 * Native batches: a batch whose every line routes to one provider configured with
 * `batches: 'native'` (and whose plugin has the `batches` capability) runs on the upstream's
 * batch API. The gateway converts each line as for a live request, submits, polls, maps the
 * upstream's phase onto §3.2, reads the results back into the caller's format with the
 * caller's custom_ids and bills each succeeded line at `batches.priceMultiplier`.
 */
export class NativeBatches {
  private readonly abort = new AbortController();

  constructor(private readonly deps: NativeBatchDeps) {}

  stop(): void {
    this.abort.abort();
  }

  private get router() {
    return this.deps.router;
  }

  /** The model a line goes to on `providerId` (the plan's first one there), if any. */
  private modelOn(model: string, providerId?: string): { models: CatalogModel[]; first: CatalogModel | undefined } {
    try {
      const plan = this.router.planChat(model, servesChat);
      const models = [...plan.primary, ...plan.chain];
      return { models, first: models.find((m) => providerId === undefined || m.provider.id === providerId) };
    } catch {
      return { models: [], first: undefined };
    }
  }

  /**
   * Whether a validated batch runs natively: every line's candidates (fallbacks included) are
   * on one provider with `batches: 'native'` and a `batches` capability, and every line that
   * can be encoded goes upstream in one format the capability takes, and no line names a file
   * uploaded to the gateway (the live exchange carries those inline) or fallback models of its
   * own (the live exchange routes them). Undefined: emulated.
   */
  async plan(batch: BatchRecord, lines: BatchInputLine[]): Promise<NativeBatchState | undefined> {
    if (![...this.deps.registry.providers.values()].some((p) => p.batches === 'native')) return undefined;
    let provider: string | undefined;
    let format: WireFormat | undefined;
    // File ids the lines name (one format: the batch's endpoint says it), looked up once the rest allows native.
    const named: string[] = [];
    let namedFormat: WireFormat | undefined;
    for (const line of lines) {
      const { models } = this.modelOn(String(line.body.model));
      if (models.length === 0) return undefined;
      const body = this.bodyOf(batch, line);
      // A line with its own fallback models (OpenRouter's `models`) runs emulated: the live exchange routes them.
      const fallbacks = getFormat(body.format).passthrough.modelFallbacks;
      if (fallbacks !== undefined && body.body[fallbacks] !== undefined) return undefined;
      const ids = storedFilesOf(body.format, body.body, body.raw ?? JSON.stringify(body.body));
      if (ids.length > 0) {
        namedFormat = body.format;
        for (const id of ids) named.push(id);
      }
      for (const m of models) {
        provider ??= m.provider.id;
        if (m.provider.id !== provider) return undefined;
      }
      const model = models[0];
      if (model.provider.batches !== 'native' || !model.provider.instance.batches) return undefined;
      const encoded = this.tryEncode(batch, line, model);
      if (!encoded) continue; // the line fails on its own when the batch is submitted
      format ??= encoded.format;
      if (encoded.format !== format || !model.provider.instance.batches.formats.includes(format)) return undefined;
    }
    if (!provider || !format) return undefined;
    if (namedFormat !== undefined && (await namesGatewayFiles(this.deps, namedFormat, named, batch.accountId))) return undefined;
    return { provider, format, upstream: null, phase: null, cancelSent: false, windowPassed: false };
  }

  /** A line's body in the batch's format (never streamed). */
  private bodyOf(batch: BatchRecord, line: BatchInputLine): CallBody {
    return callBodyOfLine(batch.endpoint, line.body);
  }

  /** A line as an exchange call, admitted like an emulated line (the batch route, the batch multiplier). */
  private callOf(batch: BatchRecord, line: BatchInputLine, requestId: string, auth: AuthContext): ExchangeCall {
    return {
      ...this.bodyOf(batch, line),
      auth,
      route: '/v1/batches',
      clientAddress: 'batch',
      ids: { requestId, correlationId: batch.id },
      priceMultiplier: this.deps.config.batches.priceMultiplier,
    };
  }

  /** The line's request and the body the upstream's batch API gets, as a live exchange would send it. */
  private encode(batch: BatchRecord, line: BatchInputLine, model: CatalogModel) {
    const call = this.bodyOf(batch, line);
    const request = decodeCall(call);
    const encoded = encodeCall(call, request, model, this.deps.config.defaults.maxTokens);
    return { request, ...encoded };
  }

  private tryEncode(batch: BatchRecord, line: BatchInputLine, model: CatalogModel) {
    try {
      return this.encode(batch, line, model);
    } catch {
      return undefined;
    }
  }

  /** Runs (or resumes) a native batch until it ends, the instance stops, or the lease is lost. */
  async run(claimed: BatchRecord, lines: BatchInputLine[], renew: () => Promise<boolean>): Promise<void> {
    const { store } = this.deps;
    let batch = claimed;
    let state = batch.native as unknown as NativeBatchState;
    const capability = this.deps.registry.providers.get(state.provider)?.instance.batches;
    if (!capability) {
      await this.failBatch(batch, 'provider_unavailable', `The provider '${state.provider}' that runs this batch is no longer configured for native batches.`);
      return;
    }
    const save = async (next: NativeBatchState, patch: Partial<BatchRecord> = {}) => {
      state = next;
      batch = (await store.batches.update(batch.id, { ...patch, native: state as unknown as Record<string, unknown> })) ?? batch;
    };

    if (!state.upstream && state.submitting && capability.find) {
      // A crash may have come between the upstream accepting the batch and the record saying so.
      try {
        const found = await capability.find(batch.id, this.abort.signal);
        if (found) await save({ ...state, upstream: found });
      } catch (error) {
        this.deps.log.warn('native batch: looking for an earlier upstream batch failed; submitting', { batch: batch.id, error: this.describe(error) });
      }
    }
    if (!state.upstream) {
      await save({ ...state, submitting: true });
      const submitted = await this.submit(batch, lines, state, capability);
      if (submitted === 'retry' || submitted === 'failed') return;
      if (submitted === 'nothing') return this.finish(batch.id, lines, state);
      await save({ ...state, upstream: submitted });
    }

    let nextPoll = 0;
    for (;;) {
      if (this.abort.signal.aborted || !(await renew())) return;
      const current = await store.batches.get(batch.id);
      if (!current) return;
      batch = current;
      const now = this.deps.clock.now();
      const windowPassed = now >= batch.expires_at * 1000;
      if (!state.cancelSent && (batch.status === 'cancelling' || windowPassed)) {
        try {
          await capability.cancel(state.upstream!, this.abort.signal);
          await save({ ...state, cancelSent: true, windowPassed: batch.status !== 'cancelling' && windowPassed });
          nextPoll = 0;
        } catch (error) {
          this.deps.log.warn('native batch: cancelling upstream failed; retrying', { batch: batch.id, error: this.describe(error) });
        }
      }
      if (now >= nextPoll) {
        nextPoll = now + this.deps.config.batches.pollIntervalMs;
        let status;
        try {
          status = await capability.poll(state.upstream!, this.abort.signal);
        } catch (error) {
          if (this.abort.signal.aborted) return;
          this.deps.log.warn('native batch: polling the upstream failed; retrying', { batch: batch.id, error: this.describe(error) });
        }
        if (status) {
          const upstream = status.state ? { ...state.upstream!, state: status.state } : state.upstream!;
          const patch: Partial<BatchRecord> = {};
          if (status.counts) {
            const skipped = (await store.batches.lines(batch.id)).length;
            patch.request_counts = { total: lines.length, completed: status.counts.succeeded, failed: Math.min(lines.length, status.counts.failed + skipped) };
          }
          // The upstream cancelled on its own (e.g. from its console): the caller sees it as cancelling.
          if (status.phase === 'cancelling' && batch.status === 'in_progress' && !state.cancelSent) {
            patch.status = 'cancelling';
            patch.cancelling_at = seconds(now);
          }
          await save({ ...state, upstream, phase: status.phase }, patch);
          if (status.phase === 'failed') {
            await this.failBatch(batch, status.error?.code ?? 'provider_error', status.error?.message ?? `The provider '${state.provider}' refused the batch.`);
            return;
          }
          if (status.phase === 'ended') break;
        }
      }
      await sleep(Math.min(LOOK_MS, Math.max(0, nextPoll - this.deps.clock.now())), undefined, { signal: this.abort.signal }).catch(() => undefined);
    }

    if (batch.status === 'in_progress' && !state.windowPassed) {
      batch = (await store.batches.update(batch.id, { status: 'finalizing', finalizing_at: seconds(this.deps.clock.now()) })) ?? batch;
    }
    const collected = await this.collect(batch, lines, state, capability, renew);
    if (collected) await this.finish(batch.id, lines, state);
  }

  /**
   * Converts the lines, checks each against the caller's key (scopes, tier, balance) as a live
   * request would be, records the lines that cannot run as failed, and submits the rest.
   */
  private async submit(batch: BatchRecord, lines: BatchInputLine[], state: NativeBatchState, capability: BatchCapability): Promise<NativeBatchRef | 'retry' | 'failed' | 'nothing'> {
    const { store } = this.deps;
    const done = new Set((await store.batches.lines(batch.id)).map((l) => l.index));
    const requests: NativeBatchRequest[] = [];
    // Every line admitted holds its credits until all are (then all are released): the lines sent
    // must fit the balance, spend limits and token quota together, not each on its own (one line's
    // worth of credit would otherwise send any number of lines to the provider, at the operator's cost).
    const held: Array<{ settle(settlement: null): Promise<unknown> }> = [];
    try {
      for (const line of lines) {
        if (done.has(line.index)) continue;
        const requestId = this.requestIdOf(batch, line);
        try {
          const model = this.modelOn(String(line.body.model), state.provider).first;
          if (!model) throw new GatewayError('model_not_found', `The model '${String(line.body.model)}' is not served by the provider '${state.provider}'.`);
          const encoded = this.encode(batch, line, model);
          if (encoded.format !== state.format) throw new GatewayError('bad_request', `The line cannot be sent to '${state.provider}' in its batch format.`);
          held.push(await this.admit(batch, line, encoded.request, requestId));
          requests.push({ customId: upstreamCustomId(line.index), body: encoded.body });
        } catch (thrown) {
          await this.saveLine(this.failedLine(batch, line, requestId, toGatewayError(thrown)));
        }
      }
    } finally {
      await Promise.all(held.map((admission) => admission.settle(null)));
    }
    if (requests.length === 0) return 'nothing';
    try {
      return await capability.submit({ format: state.format, requests, batchId: batch.id, signal: this.abort.signal });
    } catch (thrown) {
      if (this.abort.signal.aborted) return 'retry';
      const error = this.mapError(state.provider, thrown);
      if (error.retryable) {
        this.deps.log.warn('native batch: submitting to the upstream failed; retrying', { batch: batch.id, error: error.message });
        await sleep(this.deps.config.batches.pollIntervalMs, undefined, { signal: this.abort.signal }).catch(() => undefined);
        return 'retry';
      }
      await this.failBatch(batch, error.code, error.message);
      return 'failed';
    }
  }

  /** Reads the upstream results: each line converted into the caller's format, billed, recorded once. */
  private async collect(batch: BatchRecord, lines: BatchInputLine[], state: NativeBatchState, capability: BatchCapability, renew: () => Promise<boolean>): Promise<boolean> {
    const { store } = this.deps;
    const done = new Set((await store.batches.lines(batch.id)).map((l) => l.index));
    const byIndex = new Map(lines.map((l) => [l.index, l]));
    // Lines the ledger has: billed before a crash lost their progress (written again, not billed again).
    const billed = (await this.deps.guards.billedRequests?.(`${batch.id}:`)) ?? new Set<string>();
    let seen = 0;
    try {
      for await (const result of capability.results(state.upstream!, this.abort.signal)) {
        const index = indexOfCustomId(result.customId);
        const line = index === undefined ? undefined : byIndex.get(index);
        if (!line || done.has(line.index)) continue;
        done.add(line.index);
        await this.saveLine(await this.resultLine(batch, line, state, result, billed));
        if (++seen % 100 === 0 && !(await renew())) return false;
      }
    } catch (error) {
      if (this.abort.signal.aborted) return false;
      this.deps.log.warn('native batch: reading the upstream results failed; retrying', { batch: batch.id, error: this.describe(error) });
      await sleep(this.deps.config.batches.pollIntervalMs, undefined, { signal: this.abort.signal }).catch(() => undefined);
      return false;
    }
    return true;
  }

  /** One upstream result as an output or error file line; a succeeded line (or a failed one that reports its usage) is billed first. */
  private async resultLine(batch: BatchRecord, line: BatchInputLine, state: NativeBatchState, result: NativeBatchResult, billed: ReadonlySet<string>): Promise<BatchLineRecord> {
    const requestId = this.requestIdOf(batch, line);
    if (result.type === 'canceled' || result.type === 'expired') {
      const expired = result.type === 'expired' || state.windowPassed;
      return this.unrunLine(batch, line, requestId, expired ? 'batch_expired' : 'batch_cancelled');
    }
    const model = this.modelOn(String(line.body.model), state.provider).first;
    try {
      if (!model) throw new GatewayError('model_not_found', `The model '${String(line.body.model)}' is no longer served by the provider '${state.provider}'.`);
      // Encoded again as it went up: a tool name the upstream's format refused went shortened, and comes back under the line's.
      const { request, restore } = this.encode(batch, line, model);
      if (result.type === 'errored') {
        const said = getCodec(state.format).decodeError(result.status, result.body);
        throw upstreamError(state.provider, { ...said, status: result.status, phase: 'response' });
      }
      const answer = (result as Extract<NativeBatchResult, { type: 'succeeded' }>).body;
      const clientFormat = formatOfEndpoint(batch.endpoint);
      const upstreamCodec = getCodec(state.format);
      let body: unknown = answer;
      let settlement: Settlement;
      if (clientFormat === state.format) {
        const info = upstreamCodec.readPassthroughResponse(answer);
        settlement = { model, usage: info.usage ?? { inputTokens: estimateInputTokens(request), outputTokens: 0 }, estimated: !info.usage, aborted: false, responseId: info.id };
      } else {
        let response;
        try {
          response = upstreamCodec.decodeResponse(answer);
          if (restore) response = restore(response);
        } catch (error) {
          if (!billed.has(requestId)) await this.settleFailedAnswer(batch, line, request, requestId, model, error);
          throw error;
        }
        body = getCodec(clientFormat).encodeResponse(response, request);
        settlement = { model, usage: response.usage, estimated: false, aborted: false, responseId: response.id, finishReason: response.finishReason, responseModel: response.model };
      }
      if (!billed.has(requestId)) {
        const admission = await this.admit(batch, line, request, requestId);
        await admission.settle(settlement);
      }
      const out = { id: this.lineIdOf(requestId), custom_id: line.customId, response: { status_code: 200, request_id: requestId, body }, error: null };
      return { batchId: batch.id, index: line.index, customId: line.customId, outcome: 'completed', result: JSON.stringify(out) };
    } catch (thrown) {
      return this.failedLine(batch, line, requestId, toGatewayError(thrown));
    }
  }

  /**
   * A result that failed but reports what it used (a Responses `status: "failed"` converted for
   * another format): charged that, with the error, as the live path charges it (run-chat).
   */
  private async settleFailedAnswer(batch: BatchRecord, line: BatchInputLine, request: ChatRequest, requestId: string, model: CatalogModel, error: unknown): Promise<void> {
    const settlement = failedAnswerSettlement(model, error);
    if (!settlement) return;
    const admission = await this.admit(batch, line, request, requestId);
    await admission.settle(settlement);
  }

  private async admit(batch: BatchRecord, line: BatchInputLine, request: ChatRequest, requestId: string) {
    const auth = await this.authOf(batch);
    const call = this.callOf(batch, line, requestId, auth);
    return admitCall(this.deps, call, readCall(call, request).facts);
  }

  private async authOf(batch: BatchRecord) {
    const account = this.deps.store.cache.account(batch.accountId);
    const key = batch.keyId ? await this.deps.store.keys.get(batch.keyId) : undefined;
    if (!account || !key || key.revokedAt !== null) throw new GatewayError('invalid_api_key', 'The API key that created the batch is gone or revoked.');
    return { account, key };
  }

  /** The same id for a line every time, as the emulated executor's (a resumed batch finds it in the ledger). */
  private requestIdOf(batch: BatchRecord, line: BatchInputLine): string {
    return lineRequestId(batch.id, line.index);
  }

  /** The output line's own id (`batch_req_…`), the same for a line every time. */
  private lineIdOf(requestId: string): string {
    return `batch_req_${requestId.replace(/^batch_/, '').replace(':', '_')}`;
  }

  private failedLine(batch: BatchRecord, line: BatchInputLine, requestId: string, error: GatewayError): BatchLineRecord {
    const out = { id: this.lineIdOf(requestId), custom_id: line.customId, response: failedLineResponse(batch, error, requestId), error: { code: error.code, message: error.message } };
    return { batchId: batch.id, index: line.index, customId: line.customId, outcome: 'failed', result: JSON.stringify(out) };
  }

  private unrunLine(batch: BatchRecord, line: BatchInputLine, requestId: string, code: 'batch_expired' | 'batch_cancelled'): BatchLineRecord {
    const out = { id: this.lineIdOf(requestId), custom_id: line.customId, response: null, error: { code, message: code === 'batch_expired' ? EXPIRED_MESSAGE : CANCELLED_MESSAGE } };
    return { batchId: batch.id, index: line.index, customId: line.customId, outcome: 'failed', result: JSON.stringify(out) };
  }

  private async saveLine(record: BatchLineRecord): Promise<void> {
    if (await this.deps.store.batches.saveLine(record)) {
      const code = record.outcome === 'failed' ? /"code":"batch_expired"/.test(record.result) : false;
      this.deps.onLine?.(record.outcome === 'completed' ? 'completed' : code ? 'expired' : 'failed');
    }
  }

  private mapError(providerId: string, thrown: unknown): GatewayError {
    if (isGatewayError(thrown)) return thrown;
    if (isUpstreamHttpError(thrown)) {
      const said = getCodec('chat').decodeError(thrown.status, thrown.body);
      return upstreamError(providerId, { ...said, status: thrown.status, headers: thrown.headers, phase: 'response' });
    }
    return mapTransportError(thrown, this.abort.signal);
  }

  private describe(error: unknown): string {
    return isUpstreamHttpError(error) ? `upstream answered ${error.status}` : String((error as Error)?.message ?? error);
  }

  private async failBatch(batch: BatchRecord, code: string, message: string): Promise<void> {
    await this.deps.store.batches.update(batch.id, {
      status: 'failed',
      failed_at: seconds(this.deps.clock.now()),
      errors: { object: 'list', data: [{ code, message, line: null, param: null }] },
      lease: null,
    });
  }

  /** Lines without a result are recorded as not run; then the output and error files are written (finish-batch.ts). */
  private async finish(batchId: string, lines: BatchInputLine[], state: NativeBatchState): Promise<void> {
    const { store } = this.deps;
    const batch = (await store.batches.get(batchId))!;
    const cancelled = batch.status === 'cancelling';
    const have = new Set((await store.batches.lines(batchId)).map((l) => l.index));
    for (const line of lines) {
      // No result upstream: not run (cancelled, or the window passed), or lost by the upstream.
      if (!have.has(line.index)) await this.saveLine(this.unrunLine(batch, line, this.requestIdOf(batch, line), cancelled && !state.windowPassed ? 'batch_cancelled' : 'batch_expired'));
    }
    const finished = await store.batches.lines(batchId);
    const expired = state.windowPassed || finished.some((l) => l.outcome === 'failed' && l.result.includes('"code":"batch_expired"'));
    const end: BatchEnd = cancelled ? { status: 'cancelled' } : expired ? { status: 'expired', unrun: [] } : { status: 'completed' };
    await finishBatch(this.deps, batch, end, lines.length);
  }
}
