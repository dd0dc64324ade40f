import { setTimeout as sleep } from 'node:timers/promises';
import { toGatewayError } from '../errors/index.ts';
import { createTurns, RepeatedFailure, SerialTimer } from '../util/index.ts';
import { oldestAlive } from '../media/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { advanceJob, endJob } from './advance-job.ts';
import { jobModel } from './job-model.ts';
import { ContentCache } from './content-cache.ts';
import { jobAuth, updateJob, type JobContext, type JobDeps } from './job-context.ts';
import { FINAL_STATUSES, jobRequestId, readJob } from './job-state.ts';
import { billJob, deliverJobWebhook } from './settle-job.ts';
import { accountWebhookSecret, readMasterSecret } from './sign-webhook.ts';

const LOOK_MS = 500;
/** Polls that may fail one after another (provider down) before the job is ended failed. */
const MAX_POLL_FAILURES = 20;

/**
 * Runs the jobs of the Media Library: claims open jobs (an expiring lease per record, so another
 * instance resumes the jobs of one that died), polls their providers every
 * `media.jobs.pollIntervalMs`, records progress and the result, settles the charge once and
 * delivers the webhook. Everything it needs is in the record: a restart resumes where it was.
 */
export class JobRunner {
  readonly ctx: JobContext;
  /** Looks for work: one pass at a time (two could both claim a job and drive it twice). */
  private readonly ticker = new SerialTimer(
    () => this.tick(),
    (error) => this.ctx.log.error('media jobs: looking for work failed', { error: String(error) }),
  );
  /** Looking for work fails at every look while the database is away: logged once a minute. */
  private readonly lookFailures = new RepeatedFailure();
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly running = new Map<string, Promise<void>>();
  /** Wakes a job's loop early (a cancel, a new job). */
  private readonly wakers = new Map<string, () => void>();

  constructor(deps: JobDeps) {
    const master = deps.webhookMaster ?? readMasterSecret(deps.config.webhookSecret, deps.dataDir, (message) => deps.log.warn(message));
    this.ctx = {
      ...deps,
      cache: new ContentCache(deps.dataDir, deps.config.contentCacheBytes),
      holds: new Map(),
      submitting: new Set(),
      recordTurns: createTurns(),
      submitTurns: createTurns(),
      webhookSecret: (accountId) => accountWebhookSecret(master, accountId),
    };
  }

  private sweeper: NodeJS.Timeout | undefined;
  /** The content sweep under way: stop() waits for it (it creates and deletes in the data dir). */
  private sweeping: Promise<void> | undefined;

  start(): void {
    this.ticker.now();
    const sweep = () => {
      if (this.sweeping || this.stopped) return;
      this.sweeping = this.sweepContent()
        .then(() => undefined, (error: unknown) => this.ctx.log.warn('media jobs: sweeping cached content failed', { error: String(error) }))
        .finally(() => (this.sweeping = undefined));
    };
    sweep();
    this.sweeper = setInterval(sweep, this.ctx.sweepEveryMs ?? 3_600_000);
    this.sweeper.unref();
  }

  /** Drops cached content whose record is gone (deleted, or purged after 30 days). */
  private async sweepContent(): Promise<number> {
    const alive = oldestAlive(this.ctx.clock.now());
    return this.ctx.cache.sweep(async (id) => {
      const record = await this.ctx.store.media.get(id);
      return Boolean(record && record.created_at >= alive);
    });
  }

  /** Looks for work now; with an id, also wakes that job's loop (it was cancelled). */
  wake(id?: string): void {
    if (id) this.wakers.get(id)?.();
    if (!this.stopped) this.ticker.now();
  }

  /** One look for work; returns the delay before the next. */
  private async tick(): Promise<number> {
    const { store, clock, config, instanceId } = this.ctx;
    try {
      const now = clock.now();
      for (const id of [...this.running.keys(), ...this.ctx.submitting]) await store.media.claimJob(id, instanceId, now, config.leaseMs);
      for (const record of await store.media.claimableJobs(now, 100, instanceId)) {
        if (this.running.has(record.id) || this.ctx.submitting.has(record.id)) continue;
        const claimed = await store.media.claimJob(record.id, instanceId, now, config.leaseMs);
        if (claimed) this.run(claimed.id);
      }
      // Jobs this instance submitted hold their lease from the start: not claimable, so start them here.
      for (const id of this.ctx.holds.keys()) if (!this.running.has(id) && !this.ctx.submitting.has(id)) this.run(id);
      const failures = this.lookFailures.succeeded();
      if (failures > 0) this.ctx.log.info('media jobs: looking for work again', { failures });
    } catch (error) {
      if (this.lookFailures.failed()) this.ctx.log.error('media jobs: looking for work failed (logged once a minute while it fails)', { error: String(error), failures: this.lookFailures.count });
    }
    return Math.min(LOOK_MS * 4, config.leaseMs / 3);
  }

  private run(id: string): void {
    const loop = this.drive(id)
      .catch((error: unknown) => this.ctx.log.error('media job failed to run', { job: id, error: String(error) }))
      .finally(() => {
        this.running.delete(id);
        this.wakers.delete(id);
      });
    this.running.set(id, loop);
  }

  /** Sleeps up to `ms`, less when the job is woken or the runner stops. */
  private async pause(id: string, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      timer.unref();
      this.wakers.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
      this.abort.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** One job from where its record says it is, while this instance holds its lease. */
  private async drive(id: string): Promise<void> {
    const { store, instanceId, config } = this.ctx;
    let failures = 0;
    let held = false;
    while (!this.stopped) {
      const record = await store.media.get(id);
      const job = record ? readJob(record) : undefined;
      if (!record?.job?.open || !job) return this.forget(id);
      if (record.job.lease?.owner !== instanceId) return;
      if (!FINAL_STATUSES.has(job.status)) {
        if (!held) {
          held = true;
          await this.holdAgain(record);
        }
        try {
          await advanceJob(this.ctx, record, job, this.abort.signal);
          failures = 0;
        } catch (error) {
          if (this.stopped) return;
          failures += 1;
          this.ctx.log.warn('media job: polling the provider failed', { job: id, failures, error: String(error) });
          if (failures >= MAX_POLL_FAILURES) {
            const e = toGatewayError(error);
            await endJob(this.ctx, id, 'failed', { code: e.code, message: e.message });
          }
        }
        const after = await store.media.get(id);
        const next = after ? readJob(after) : undefined;
        if (next && !FINAL_STATUSES.has(next.status)) await this.pause(id, config.pollIntervalMs * Math.min(8, 2 ** failures));
        continue;
      }
      if (!job.billed) {
        await billJob(this.ctx, record, job);
        continue;
      }
      const delivery = await deliverJobWebhook(this.ctx, record, job);
      if (!delivery.done) {
        await this.pause(id, (delivery.nextAt ?? 0) - this.ctx.clock.now());
        continue;
      }
      await updateJob(this.ctx, id, (j) => ({ job: j, open: false }));
      return;
    }
  }

  /**
   * A job this instance did not submit (a restart, another instance's): its estimate is held
   * again, so the account's balance reflects it while it runs. Refused (balance gone): it runs
   * on and is charged at the end.
   */
  private async holdAgain(record: MediaRecord): Promise<void> {
    if (this.ctx.holds.has(record.id)) return;
    const job = readJob(record)!;
    const model = jobModel(this.ctx, job);
    const auth = await jobAuth(this.ctx.store, record.accountId, job.keyId);
    if (!model || !auth) return;
    const requestId = jobRequestId(record.id);
    const seconds = job.seconds ?? 0;
    try {
      const admission = await this.ctx.guards.admit({
        auth, method: 'POST', route: job.door === 'video' ? '/v1/videos' : '/v1/media/generations', clientAddress: 'job', untilBilled: true, resumed: true, model: model.id, servedBy: [model],
        media: record.media_type === 'threed' ? { jobs: 1 } : { mediaSeconds: seconds, jobs: 1 }, requestId,
      });
      this.ctx.holds.set(record.id, admission);
    } catch (error) {
      this.ctx.log.warn('media job: holding the estimate again was refused; the job is charged when it ends', { job: record.id, error: String(error) });
    }
  }

  /** A job whose record is gone (deleted while running): its hold is given back. */
  private async forget(id: string): Promise<void> {
    const hold = this.ctx.holds.get(id);
    this.ctx.holds.delete(id);
    await hold?.settle(null);
    await this.ctx.cache.remove(id).catch(() => undefined);
  }

  /** Stops polling, waits for the loops, gives the leases back (another instance may go on at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    // A look for work under way may still claim a job and drive it: wait for it, so that job is waited for and given back too.
    await this.ticker.stop();
    if (this.sweeper) clearInterval(this.sweeper);
    await this.sweeping;
    this.abort.abort();
    const ids = [...this.running.keys()];
    await Promise.allSettled([...this.running.values()]);
    await Promise.allSettled(ids.map((id) => this.ctx.store.media.releaseJob(id, this.ctx.instanceId)));
  }
}
