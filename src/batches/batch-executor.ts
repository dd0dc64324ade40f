import { GatewayError, toGatewayError } from '../errors/index.ts';
import { runExchange, runMediaExchange, type ExchangeDeps, type MediaCall } from '../exchange/index.ts';
import { decodeEmbeddingRequest, decodeModerationRequest, embeddingAttempt, moderationAttempt } from '../media/index.ts';
import type { BatchLineRecord, BatchRecord } from '../store/index.ts';
import { newId, RepeatedFailure, SerialTimer } from '../util/index.ts';
import { callBodyOfLine, EMBEDDINGS_ENDPOINT, isMediaEndpoint } from './format-of-endpoint.ts';
import { failedLineResponse } from './failed-line-response.ts';
import { countLines, finishBatch, lineRequestId } from './finish-batch.ts';
import { NativeBatches } from './native-batch.ts';
import { LineGate } from './line-gate.ts';
import { validateBatchInput, type BatchInputLine } from './validate-input.ts';

/** An exchange's deps (lines share the router, so the breakers and latency of live traffic), and more: */
export interface BatchExecutorDeps extends ExchangeDeps {
  /**
   * Who holds the leases: stable across restarts of one data dir (its `instance-id` file), so a
   * restarted gateway takes its own batches back at once instead of waiting for the old leases to lapse.
   */
  instanceId?: string;
  /** Told once per finished line: `completed`, `failed`, or `expired` (not run before the window closed). */
  onLine?: (outcome: 'completed' | 'failed' | 'expired') => void;
}

const POLL_MS = 500;
const COUNTS_EVERY_MS = 1000;

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The emulated batch executor: claims unfinished batches (an expiring lease, so another
 * instance resumes a batch whose instance died), validates the input, runs each line
 * through the live pipeline at `batches.concurrency`, billed at `batches.priceMultiplier`,
 * records each finished line durably (a resumed batch skips them), and writes the output
 * and error files at the end. See docs/batches.md.
 */
export class BatchExecutor {
  readonly instanceId: string;
  /** Looks for work: one pass at a time (two could both claim a batch and run it twice). */
  private readonly ticker = new SerialTimer(
    () => this.tick(),
    (error) => this.deps.log.error('batch executor: looking for work failed', { error: String(error) }),
  );
  /** Looking for work fails at every poll while the database is away: logged once a minute, not every 500 ms. */
  private readonly pollFailures = new RepeatedFailure();
  private stopped = false;
  private readonly running = new Map<string, Promise<void>>();
  /** Input-file bytes of the batches running here (`batches.runningInputBytes` bounds them). */
  private runningBytes = 0;
  private readonly renewedAt = new Map<string, number>();
  /** Batches that run on a provider's own batch API (native-batch.ts). */
  private readonly native: NativeBatches;
  /** Slots shared by every batch of this instance, below live traffic. */
  readonly gate: LineGate;

  constructor(private readonly deps: BatchExecutorDeps) {
    this.instanceId = deps.instanceId ?? newId('inst', 12);
    this.native = new NativeBatches(deps);
    this.gate = new LineGate(deps.config.batches.concurrency, () => deps.guards.liveInFlight?.() ?? 0);
  }

  /** Takes back the leases this instance held before a restart (nobody else runs them: the data dir is locked), then looks for work. */
  start(): void {
    void this.releaseOwnLeases()
      .catch((error: unknown) => this.deps.log.warn('batch executor: releasing the previous leases failed; they lapse on their own', { error: String(error) }))
      .finally(() => this.ticker.now());
  }

  private async releaseOwnLeases(): Promise<void> {
    const { batches } = this.deps.store;
    let after: string | undefined;
    for (;;) {
      const page = await batches.list({ status: ['validating', 'in_progress', 'finalizing', 'cancelling'], limit: 1000, after });
      for (const b of page.data) if (b.lease?.owner === this.instanceId) await batches.release(b.id, this.instanceId);
      if (!page.hasMore || page.data.length === 0) return;
      after = page.data.at(-1)!.id;
    }
  }

  /** Looks for work now (a batch was just created or cancelled). */
  wake(): void {
    if (!this.stopped) this.ticker.now();
  }

  /** One look for work; returns the delay before the next. */
  private async tick(): Promise<number> {
    try {
      const now = this.deps.clock.now();
      await this.renewLeases(now);
      for (const batch of await this.deps.store.batches.claimable(now)) {
        if (this.running.has(batch.id)) continue;
        // Each running batch holds its parsed input: oldest first, within the budget (one always runs); the rest wait unclaimed.
        const bytes = (await this.deps.store.files.get(batch.accountId, batch.input_file_id))?.bytes ?? 0;
        if (this.running.size > 0 && this.runningBytes + bytes > this.deps.config.batches.runningInputBytes) break;
        const claimed = await this.deps.store.batches.claim(batch.id, this.instanceId, now, this.deps.config.batches.leaseMs);
        if (!claimed) continue;
        this.renewedAt.set(batch.id, now);
        this.runningBytes += bytes;
        const run = this.process(claimed)
          .catch((error: unknown) => this.deps.log.error('batch failed to run', { batch: batch.id, error: String(error) }))
          .finally(() => {
            this.running.delete(batch.id);
            this.runningBytes -= bytes;
            // Its room goes to the next batch now, not at the next poll.
            this.wake();
          });
        this.running.set(batch.id, run);
      }
      const failures = this.pollFailures.succeeded();
      if (failures > 0) this.deps.log.info('batch executor: looking for work again', { failures });
    } catch (error) {
      if (this.pollFailures.failed()) this.deps.log.error('batch executor: looking for work failed (logged once a minute while it fails)', { error: String(error), failures: this.pollFailures.count });
    }
    return POLL_MS;
  }

  /** True while this instance holds the batch's lease (and is not stopping). */
  private async holdsLease(batchId: string): Promise<boolean> {
    if (this.stopped) return false;
    return (await this.deps.store.batches.get(batchId))?.lease?.owner === this.instanceId;
  }

  /** Keeps the leases of the batches running here (their lines may wait long for a shared slot). */
  private async renewLeases(now: number): Promise<void> {
    for (const id of this.running.keys()) {
      if (now - (this.renewedAt.get(id) ?? 0) < this.deps.config.batches.leaseMs / 3) continue;
      this.renewedAt.set(id, now);
      await this.deps.store.batches.claim(id, this.instanceId, now, this.deps.config.batches.leaseMs);
    }
    for (const id of this.renewedAt.keys()) if (!this.running.has(id)) this.renewedAt.delete(id);
  }

  /** Stops taking lines; waits for lines in flight; gives back the leases (another instance may go on at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    // A look for work under way may still claim a batch and start it: wait for it, so that batch is waited for and given back too.
    await this.ticker.stop();
    const ids = [...this.running.keys()];
    this.native.stop();
    await Promise.allSettled([...this.running.values()]);
    await Promise.allSettled(ids.map((id) => this.deps.store.batches.release(id, this.instanceId)));
  }

  private knownModel = (model: string): boolean => this.deps.registry.serves(model);
  private whyUnknown = (model: string): string | undefined => this.deps.registry.whyNotServed(model);

  private async process(claimed: BatchRecord): Promise<void> {
    const { store, clock } = this.deps;
    let batch = claimed;
    if (batch.status === 'validating') {
      const content = await store.files.content(batch.accountId, batch.input_file_id);
      const checked = content
        ? validateBatchInput(content, batch.endpoint, this.knownModel, this.whyUnknown)
        : { lines: [], errors: [{ code: 'file_not_found', message: `The input file ${batch.input_file_id} is gone.`, line: null, param: 'input_file_id' }] };
      const now = seconds(clock.now());
      if (checked.errors.length > 0) {
        await store.batches.update(batch.id, { status: 'failed', failed_at: now, errors: { object: 'list', data: checked.errors }, lease: null });
        return;
      }
      const native = await this.native.plan(batch, checked.lines);
      const mode = native ? { mode: 'native' as const, native: native as unknown as Record<string, unknown> } : {};
      batch = (await store.batches.update(batch.id, { status: 'in_progress', in_progress_at: now, request_counts: { total: checked.lines.length, completed: 0, failed: 0 }, ...mode }))!;
      // A cancel that came while the file was being validated set `cancelling_at` (which the update
      // above leaves alone) but lost its status to it: end the batch cancelled, no line run.
      if (batch.cancelling_at !== null) {
        batch = (await store.batches.update(batch.id, { status: 'cancelling' }))!;
        await finishBatch(this.deps, batch, { status: 'cancelled' }, checked.lines.length);
        return;
      }
      return this.runBatch(claimed, batch, checked.lines);
    }
    const content = await store.files.content(batch.accountId, batch.input_file_id);
    return this.runBatch(claimed, batch, content ? validateBatchInput(content, batch.endpoint, () => true).lines : []);
  }

  /** Runs a validated batch's lines (natively or here), then finishes it. */
  private async runBatch(claimed: BatchRecord, batch: BatchRecord, lines: BatchInputLine[]): Promise<void> {
    // The tick renews the lease; the native runner stops when it is no longer this instance's.
    if (batch.mode === 'native') return this.native.run(batch, lines, () => this.holdsLease(batch.id));
    // Run before (a restart, another instance's batch): lines its ledger has were billed, even when their progress was lost.
    const billed = claimed.status === 'validating' ? new Set<string>() : await this.billedLines(batch);
    if (batch.status === 'in_progress') await this.runLines(batch, lines, billed);
    await this.finish(batch.id, lines);
  }

  private async billedLines(batch: BatchRecord): Promise<ReadonlySet<string>> {
    return (await this.deps.guards.billedRequests?.(`${batch.id}:`)) ?? new Set<string>();
  }

  private async runLines(batch: BatchRecord, lines: BatchInputLine[], billed: ReadonlySet<string>): Promise<void> {
    const { store, clock } = this.deps;
    const done = new Set((await store.batches.lines(batch.id)).map((l) => l.index));
    let counts = countLines(await store.batches.lines(batch.id), lines.length);
    const todo = lines.filter((l) => !done.has(l.index));
    let next = 0;
    let halted = false;
    let lastWrite = 0;
    let lastRenew = clock.now();
    const check = async (): Promise<boolean> => {
      if (halted || this.stopped) return false;
      const now = clock.now();
      const current = await store.batches.get(batch.id);
      if (!current || current.status !== 'in_progress' || now >= current.expires_at * 1000) {
        halted = true;
        return false;
      }
      const leaseMs = this.deps.config.batches.leaseMs;
      if (now - lastRenew > leaseMs / 3) {
        lastRenew = now;
        if (!(await store.batches.claim(batch.id, this.instanceId, now, leaseMs))) {
          halted = true;
          return false;
        }
      }
      return true;
    };
    const worker = async () => {
      while (next < todo.length) {
        const release = await this.gate.acquire();
        // `check` awaits the store: another worker may take the last line meanwhile, so look again after it.
        if (next >= todo.length || !(await check()) || next >= todo.length) {
          release();
          break;
        }
        const line = todo[next++];
        let record: BatchLineRecord;
        try {
          record = await this.runLine(batch, line, billed);
        } finally {
          release();
        }
        if (await store.batches.saveLine(record)) {
          this.deps.onLine?.(record.outcome);
          counts = record.outcome === 'completed' ? { ...counts, completed: counts.completed + 1 } : { ...counts, failed: counts.failed + 1 };
          if (clock.now() - lastWrite >= COUNTS_EVERY_MS) {
            lastWrite = clock.now();
            await store.batches.update(batch.id, { request_counts: counts });
          }
        }
      }
    };
    const workers = Array.from({ length: Math.min(this.deps.config.batches.concurrency, Math.max(1, todo.length)) }, worker);
    await Promise.all(workers);
    await store.batches.update(batch.id, { request_counts: countLines(await store.batches.lines(batch.id), lines.length) });
  }

  /**
   * One line through the live pipeline, billed at the batch multiplier against the key that
   * made the batch. Its request id (`<batch id>:<line number>`) is the one its ledger line
   * carries: a line whose charge is in the ledger but whose progress a crash lost runs again
   * unbilled (`billed`), so no line is ever charged twice.
   */
  private async runLine(batch: BatchRecord, line: BatchInputLine, billed: ReadonlySet<string>): Promise<BatchLineRecord> {
    const requestId = lineRequestId(batch.id, line.index);
    const base = { batchId: batch.id, index: line.index, customId: line.customId };
    const lineId = `batch_req_${newId('x', 16).slice(2)}`;
    try {
      const auth = await this.authOf(batch);
      if (isMediaEndpoint(batch.endpoint)) {
        const body = await this.mediaLine(batch.endpoint, line, auth, requestId, batch.id, !billed.has(requestId));
        const result = { id: lineId, custom_id: line.customId, response: { status_code: 200, request_id: requestId, body }, error: null };
        return { ...base, outcome: 'completed', result: JSON.stringify(result) };
      }
      const answer = await runExchange(this.deps, {
        ...callBodyOfLine(batch.endpoint, line.body),
        auth,
        // The batch route: exempt from rate limits (§8.1), so lines never count against the caller's RPM.
        route: '/v1/batches',
        clientAddress: 'batch',
        ids: { requestId, correlationId: batch.id },
        priceMultiplier: this.deps.config.batches.priceMultiplier,
        billed: !billed.has(requestId),
        keepResponses: false,
      });
      await answer.settled;
      const result = { id: lineId, custom_id: line.customId, response: { status_code: answer.status, request_id: requestId, body: JSON.parse(answer.json ?? '') as unknown }, error: null };
      return { ...base, outcome: 'completed', result: JSON.stringify(result) };
    } catch (thrown) {
      const error = toGatewayError(thrown);
      const result = { id: lineId, custom_id: line.customId, response: failedLineResponse(batch, error, requestId), error: { code: error.code, message: error.message } };
      return { ...base, outcome: 'failed', result: JSON.stringify(result) };
    }
  }

  /**
   * An embeddings or moderations line: the same media call as POST /v1/embeddings or
   * /v1/moderations (routing, the key's scopes, per-input-token billing), on the batch route at
   * the batch multiplier; its body is the route's.
   */
  private mediaLine(endpoint: string, line: BatchInputLine, auth: Awaited<ReturnType<BatchExecutor['authOf']>>, requestId: string, batchId: string, billed: boolean): Promise<Record<string, unknown>> {
    const call = { auth, route: '/v1/batches', clientAddress: 'batch', ids: { requestId, correlationId: batchId }, priceMultiplier: this.deps.config.batches.priceMultiplier, billed };
    return endpoint === EMBEDDINGS_ENDPOINT
      ? this.runMediaLine({ ...embeddingAttempt(decodeEmbeddingRequest(line.body)), ...call })
      : this.runMediaLine({ ...moderationAttempt(decodeModerationRequest(line.body)), ...call });
  }

  /** One media line's call; its answer is the route's body under the gateway's model id. */
  private async runMediaLine<T extends { body: Record<string, unknown> }>(call: Omit<MediaCall<T, Record<string, unknown>>, 'answer'>): Promise<Record<string, unknown>> {
    const answer = await runMediaExchange(this.deps, { ...call, answer: (served) => ({ ...served.value.body, model: served.model.id }) });
    await answer.settled;
    return answer.value;
  }

  /** The account and the API key that created the batch (its lines are charged against that key). */
  private async authOf(batch: BatchRecord) {
    const account = this.deps.store.cache.account(batch.accountId);
    const key = batch.keyId ? await this.deps.store.keys.get(batch.keyId) : undefined;
    if (!account || !key || key.revokedAt !== null) throw new GatewayError('invalid_api_key', 'The API key that created the batch is gone or revoked.');
    return { account, key };
  }

  /** Writes the output and error files and moves the batch to its end state. */
  private async finish(batchId: string, lines: BatchInputLine[]): Promise<void> {
    const { store, clock } = this.deps;
    let batch = (await store.batches.get(batchId))!;
    if (batch.status === 'in_progress' && clock.now() < batch.expires_at * 1000) {
      const finished = await store.batches.lines(batchId);
      if (finished.length < lines.length) return; // stopped: resumed later
      batch = (await store.batches.update(batchId, { status: 'finalizing', finalizing_at: seconds(clock.now()) }))!;
    }
    if (batch.status === 'cancelling') {
      await finishBatch(this.deps, batch, { status: 'cancelled' }, lines.length);
      return;
    }
    // Still in progress here means the window passed with lines not run.
    if (batch.status === 'in_progress') {
      const have = new Set((await store.batches.lines(batchId)).map((l) => l.index));
      const unrun = lines.filter((l) => !have.has(l.index));
      await finishBatch(this.deps, batch, { status: 'expired', unrun }, lines.length);
      for (let i = 0; i < unrun.length; i += 1) this.deps.onLine?.('expired');
      return;
    }
    await finishBatch(this.deps, batch, { status: 'completed' }, lines.length);
  }
}

export { lineRequestId };
